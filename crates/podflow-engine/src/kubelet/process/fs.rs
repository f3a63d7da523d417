//! A container's file system: its own files and directories, starting from
//! the image's usual directories and the files the kubelet mounts (the
//! service-account token, `ConfigMap` and downward-API volumes). `/dev/null`
//! swallows writes and reads empty, as it does in a container.

use std::collections::{BTreeMap, BTreeSet};

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
    /// The directories besides the image's usual ones ([`BASE_DIRS`]).
    dirs: BTreeSet<String>,
    /// The usual directories removed since: bit `i` for `BASE_DIRS[i]`.
    /// (Kept implicit, a container's file system holds a few paths of its own.)
    removed_base: u32,
}

/// The directories every image has, sorted (for the search).
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

/// `path`'s place in [`BASE_DIRS`].
fn base_index(path: &str) -> Option<usize> {
    BASE_DIRS.binary_search(&path).ok()
}

impl Fs {
    /// A file system holding the base directories and `files` (path, contents).
    pub fn new(files: Vec<(String, String)>) -> Fs {
        let mut fs = Fs {
            files: BTreeMap::new(),
            dirs: BTreeSet::new(),
            removed_base: 0,
        };
        for (path, contents) in files {
            let path = normalize("/", &path);
            fs.make_parents(&path);
            fs.files.insert(path, contents);
        }
        fs
    }

    fn has_dir(&self, path: &str) -> bool {
        match base_index(path) {
            Some(i) => self.removed_base & (1 << i) == 0,
            None => self.dirs.contains(path),
        }
    }

    /// Makes the directory at `path`; whether it is new.
    fn add_dir(&mut self, path: &str) -> bool {
        match base_index(path) {
            Some(i) => {
                let removed = self.removed_base & (1 << i) != 0;
                self.removed_base &= !(1 << i);
                removed
            }
            None if self.dirs.contains(path) => false,
            None => self.dirs.insert(path.to_owned()),
        }
    }

    /// Removes the directory at `path` (not what is under it); whether it was there.
    fn remove_dir(&mut self, path: &str) -> bool {
        match base_index(path) {
            Some(i) => {
                let had = self.removed_base & (1 << i) == 0;
                self.removed_base |= 1 << i;
                had
            }
            None => self.dirs.remove(path),
        }
    }

    /// Every directory there is.
    fn all_dirs(&self) -> impl Iterator<Item = &str> {
        let base = BASE_DIRS
            .iter()
            .enumerate()
            .filter(|(i, _)| self.removed_base & (1 << i) == 0)
            .map(|(_, d)| *d);
        base.chain(self.dirs.iter().map(String::as_str))
    }

    fn make_parents(&mut self, path: &str) {
        let mut parent = parent_of(path);
        while parent != "/" && self.add_dir(parent) {
            parent = parent_of(parent);
        }
    }

    /// Whether anything is at `path`.
    pub fn exists(&self, path: &str) -> bool {
        path == "/dev/null" || self.files.contains_key(path) || self.has_dir(path)
    }

    /// Whether `path` is a regular file.
    pub fn is_file(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// Whether `path` is a directory.
    pub fn is_dir(&self, path: &str) -> bool {
        self.has_dir(path)
    }

    /// The contents of the file at `path`.
    pub fn read(&self, path: &str) -> Result<&str, FsError> {
        if path == "/dev/null" {
            return Ok("");
        }
        match self.files.get(path) {
            Some(contents) => Ok(contents),
            None if self.has_dir(path) => Err(FsError::IsDir),
            None => Err(FsError::NotFound),
        }
    }

    /// Writes (or with `append`, appends to) the file at `path`.
    pub fn write(&mut self, path: &str, text: &str, append: bool) -> Result<(), FsError> {
        if path == "/dev/null" {
            return Ok(());
        }
        self.check_parent(path)?;
        if self.has_dir(path) {
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
        if self.has_dir(parent) {
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
        } else if self.has_dir(path) {
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
        if !self.remove_dir(path) {
            return Err(FsError::NotFound);
        }
        let prefix = format!("{}/", path.trim_end_matches('/'));
        self.files.retain(|p, _| !p.starts_with(&prefix));
        self.dirs.retain(|p| !p.starts_with(&prefix));
        for dir in BASE_DIRS.iter().filter(|d| d.starts_with(&prefix)) {
            self.remove_dir(dir);
        }
        Ok(())
    }

    /// Makes a directory (`parents`: and its parents, no error when it exists).
    pub fn mkdir(&mut self, path: &str, parents: bool) -> Result<(), FsError> {
        if self.files.contains_key(path) {
            return Err(FsError::Exists);
        }
        if parents {
            self.make_parents(path);
            self.add_dir(path);
            return Ok(());
        }
        if self.has_dir(path) {
            return Err(FsError::Exists);
        }
        self.check_parent(path)?;
        self.add_dir(path);
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
        names.extend(self.all_dirs().filter_map(direct));
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
        // The image's usual directories come and go as the others do.
        assert_eq!(fs.list("/usr/local"), ["bin"]);
        fs.remove_tree("/usr").unwrap();
        assert!(!fs.is_dir("/usr/local/bin") && !fs.exists("/usr"));
        assert!(!fs.list("/").contains(&"usr".to_owned()));
        assert_eq!(fs.remove_tree("/usr"), Err(FsError::NotFound));
        fs.mkdir("/usr/local", true).unwrap();
        assert!(fs.is_dir("/usr") && fs.is_dir("/usr/local"));
        assert!(!fs.is_dir("/usr/bin"));
        assert_eq!(fs.list("/a/b"), ["c"]);
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
