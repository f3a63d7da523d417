//! A container's file system: its own files and directories, starting from
//! the image's usual directories and the files the kubelet mounts (the
//! service-account token, `ConfigMap` and downward-API volumes). `/dev/null`
//! swallows writes and reads empty, as it does in a container.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

/// What a file-system call can fail with (the `errno` the tools print).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsError {
    /// `ENOENT`.
    NotFound,
    /// `EISDIR`.
    IsDir,
    /// `ENOTDIR`.
    NotDir,
    /// `EEXIST`.
    Exists,
}

impl FsError {
    /// The `strerror` text.
    pub fn text(self) -> &'static str {
        match self {
            FsError::NotFound => "No such file or directory",
            FsError::IsDir => "Is a directory",
            FsError::NotDir => "Not a directory",
            FsError::Exists => "File exists",
        }
    }
}

/// The files and directories of one container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fs {
    files: BTreeMap<String, String>,
    /// The image's usual directories borrowed, the others owned.
    dirs: BTreeSet<Cow<'static, str>>,
}

/// The directories every image has.
const BASE_DIRS: [&str; 25] = [
    "/",
    "/bin",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/mnt",
    "/opt",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/srv",
    "/sys",
    "/tmp",
    "/usr",
    "/usr/bin",
    "/usr/lib",
    "/usr/local",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/share",
    "/var",
    "/var/log",
    "/var/run",
];

/// [`BASE_DIRS`] as a set, made once: each container's starts as a copy.
static BASE_SET: LazyLock<BTreeSet<Cow<'static, str>>> =
    LazyLock::new(|| BASE_DIRS.iter().map(|d| Cow::Borrowed(*d)).collect());

impl Fs {
    /// A file system holding the base directories and `files` (path, contents).
    pub fn new(files: Vec<(String, String)>) -> Fs {
        let mut fs = Fs {
            files: BTreeMap::new(),
            dirs: BASE_SET.clone(),
        };
        for (path, contents) in files {
            let path = normalize("/", &path);
            fs.make_parents(&path);
            fs.files.insert(path, contents);
        }
        fs
    }

    fn make_parents(&mut self, path: &str) {
        let mut parent = parent_of(path);
        while parent != "/" && !self.dirs.contains(parent) {
            self.dirs.insert(Cow::Owned(parent.to_owned()));
            parent = parent_of(parent);
        }
    }

    /// Whether anything is at `path`.
    pub fn exists(&self, path: &str) -> bool {
        path == "/dev/null" || self.files.contains_key(path) || self.dirs.contains(path)
    }

    /// Whether `path` is a regular file.
    pub fn is_file(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// Whether `path` is a directory.
    pub fn is_dir(&self, path: &str) -> bool {
        self.dirs.contains(path)
    }

    /// The contents of the file at `path`.
    pub fn read(&self, path: &str) -> Result<&str, FsError> {
        if path == "/dev/null" {
            return Ok("");
        }
        match self.files.get(path) {
            Some(contents) => Ok(contents),
            None if self.dirs.contains(path) => Err(FsError::IsDir),
            None => Err(FsError::NotFound),
        }
    }

    /// Writes (or with `append`, appends to) the file at `path`.
    pub fn write(&mut self, path: &str, text: &str, append: bool) -> Result<(), FsError> {
        if path == "/dev/null" {
            return Ok(());
        }
        self.check_parent(path)?;
        if self.dirs.contains(path) {
            return Err(FsError::IsDir);
        }
        let file = self.files.entry(path.to_string()).or_default();
        if !append {
            file.clear();
        }
        file.push_str(text);
        Ok(())
    }

    fn check_parent(&self, path: &str) -> Result<(), FsError> {
        let parent = parent_of(path);
        if self.dirs.contains(parent) {
            Ok(())
        } else if self.files.contains_key(parent) {
            Err(FsError::NotDir)
        } else {
            Err(FsError::NotFound)
        }
    }

    /// Removes the file at `path`.
    pub fn remove(&mut self, path: &str) -> Result<(), FsError> {
        if self.files.remove(path).is_some() {
            Ok(())
        } else if self.dirs.contains(path) {
            Err(FsError::IsDir)
        } else {
            Err(FsError::NotFound)
        }
    }

    /// Removes a directory and everything under it (`rm -r`).
    pub fn remove_tree(&mut self, path: &str) -> Result<(), FsError> {
        if self.remove(path).is_ok() {
            return Ok(());
        }
        if !self.dirs.remove(path) {
            return Err(FsError::NotFound);
        }
        let prefix = format!("{}/", path.trim_end_matches('/'));
        self.files.retain(|p, _| !p.starts_with(&prefix));
        self.dirs.retain(|p| !p.starts_with(&prefix));
        Ok(())
    }

    /// Makes a directory (`parents`: and its parents, no error when it exists).
    pub fn mkdir(&mut self, path: &str, parents: bool) -> Result<(), FsError> {
        if self.files.contains_key(path) {
            return Err(FsError::Exists);
        }
        if parents {
            self.make_parents(path);
            self.dirs.insert(Cow::Owned(path.to_owned()));
            return Ok(());
        }
        if self.dirs.contains(path) {
            return Err(FsError::Exists);
        }
        self.check_parent(path)?;
        self.dirs.insert(Cow::Owned(path.to_owned()));
        Ok(())
    }

    /// The names directly inside a directory, sorted.
    pub fn list(&self, dir: &str) -> Vec<String> {
        let prefix = if dir == "/" {
            "/".to_string()
        } else {
            format!("{dir}/")
        };
        let direct = |p: &str| {
            p.strip_prefix(&prefix)
                .filter(|rest| !rest.is_empty() && !rest.contains('/'))
                .map(ToString::to_string)
        };
        let mut names: Vec<String> = self.files.keys().filter_map(|p| direct(p)).collect();
        names.extend(self.dirs.iter().filter_map(|d| direct(d)));
        names.sort();
        names
    }
}

/// The directory holding `path` (`/` for `/x`).
fn parent_of(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

/// `path` made absolute from `cwd`, with `.`, `..` and doubled slashes resolved.
pub fn normalize(cwd: &str, path: &str) -> String {
    let resolved = |part: &str| !matches!(part, "" | "." | "..");
    if path.len() > 1 && path.starts_with('/') && path[1..].split('/').all(resolved) {
        return path.to_owned();
    }
    let mut parts: Vec<&str> = Vec::new();
    let joined = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{cwd}/{path}")
    };
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_live_in_directories() {
        let mut fs = Fs::new(vec![(
            "/var/run/secrets/kubernetes.io/serviceaccount/namespace".into(),
            "default".into(),
        )]);
        assert!(fs.is_dir("/var/run/secrets/kubernetes.io"));
        assert_eq!(
            fs.list("/var/run/secrets/kubernetes.io/serviceaccount"),
            ["namespace"]
        );
        assert_eq!(fs.write("/nope/file", "x", false), Err(FsError::NotFound));
        fs.write("/tmp/healthy", "", false).unwrap();
        assert!(fs.is_file("/tmp/healthy"));
        fs.remove("/tmp/healthy").unwrap();
        assert_eq!(fs.read("/tmp/healthy"), Err(FsError::NotFound));
        assert_eq!(fs.read("/tmp"), Err(FsError::IsDir));
        fs.mkdir("/a/b/c", true).unwrap();
        assert_eq!(fs.mkdir("/a", false), Err(FsError::Exists));
        assert_eq!(normalize("/tmp", "../etc/./hosts"), "/etc/hosts");
        for (path, normal) in [
            ("/etc/hosts", "/etc/hosts"),
            ("/etc//hosts", "/etc/hosts"),
            ("/etc/hosts/", "/etc/hosts"),
            ("/etc/../hosts", "/hosts"),
            ("/", "/"),
            ("hosts", "/tmp/hosts"),
        ] {
            assert_eq!(normalize("/tmp", path), normal, "{path}");
        }
    }
}
