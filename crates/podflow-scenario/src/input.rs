//! Reads the bytes behind `-f PATH`: a file, every manifest of a directory, or
//! standard input for `-`, as kubectl's `FileVisitor` and
//! `ExpandPathsToFileVisitors` do (`staging/src/k8s.io/cli-runtime/pkg/resource/visitor.go`;
//! `the path "x.yaml" does not exist` from `builder.go`).

use std::io::Read;
use std::path::Path;

use super::location::InputError;
use super::manifest::{DecodedObject, parse_manifests_as_sent};
use super::text::MAX_INPUT_BYTES;

/// What kubectl calls standard input in its messages.
pub const STDIN_NAME: &str = "STDIN";

/// The extensions kubectl reads from a directory (`FileExtensions`).
const MANIFEST_EXTENSIONS: [&str; 3] = ["json", "yaml", "yml"];

/// Reads the objects of `-f PATH` (`-` is standard input), in order, as kubectl
/// sends them (a value of the wrong JSON type is the API server's to refuse); a directory
/// gives its `.json`, `.yaml` and `.yml` files in name order, not recursing.
pub fn read_manifests(path: &str) -> Result<Vec<DecodedObject>, InputError> {
    if path == "-" {
        let bytes = read_limited(STDIN_NAME, std::io::stdin().lock())?;
        return parse_manifests_as_sent(STDIN_NAME, &bytes);
    }
    let mut manifests = Vec::new();
    for file in expand(path)? {
        let bytes = read_file(&file)?;
        manifests.extend(parse_manifests_as_sent(&file, &bytes)?);
    }
    Ok(manifests)
}

/// The bytes of one file, refusing a missing path or one larger than podflow reads.
pub fn read_file(path: &str) -> Result<Vec<u8>, InputError> {
    let file = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => missing(path),
        _ => InputError::file(path, format!("open {path}: {e}")),
    })?;
    read_limited(path, file)
}

fn missing(path: &str) -> InputError {
    InputError::file(path, format!("the path {path:?} does not exist"))
}

/// Reads at most one byte past the limit, so a huge input costs no memory.
fn read_limited(name: &str, reader: impl Read) -> Result<Vec<u8>, InputError> {
    let mut bytes = Vec::new();
    let limit = u64::try_from(MAX_INPUT_BYTES).unwrap_or(u64::MAX) + 1;
    reader
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::file(name, format!("read {name}: {e}")))?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(InputError::file(
            name,
            format!(
                "error reading {name}: the file is larger than the 16 MiB ({MAX_INPUT_BYTES} bytes) podflow reads"
            ),
        ));
    }
    Ok(bytes)
}

/// The files behind a path: itself, or a directory's manifest files in name order.
fn expand(path: &str) -> Result<Vec<String>, InputError> {
    let meta = std::fs::metadata(path).map_err(|_| missing(path))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_owned()]);
    }
    let entries =
        std::fs::read_dir(path).map_err(|e| InputError::file(path, format!("open {path}: {e}")))?;
    let mut files: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|p| p.is_file() && has_manifest_extension(p))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    Ok(files)
}

fn has_manifest_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| MANIFEST_EXTENSIONS.contains(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_path_is_named_as_kubectl_names_it() {
        let error = read_manifests("no/such/pod.yaml").unwrap_err();
        assert_eq!(
            error.message,
            "the path \"no/such/pod.yaml\" does not exist"
        );
        assert_eq!(
            error.to_string(),
            "no/such/pod.yaml: the path \"no/such/pod.yaml\" does not exist"
        );
    }
}
