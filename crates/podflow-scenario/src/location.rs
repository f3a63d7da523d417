//! Where a piece of input was written (`file:line:col`), and the one-line
//! error podflow prints when it cannot read an input.

use std::fmt;

/// A place in an input file; line and column count from 1.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    /// The file as the user named it (`pod.yaml`, or `STDIN` for `-`, as kubectl calls it).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl Location {
    /// A location in `file` at `line`:`column`.
    pub fn new(file: &str, line: usize, column: usize) -> Location {
        Location {
            file: file.to_owned(),
            line,
            column,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// An input podflow refuses before anything reaches the simulated cluster,
/// as kubectl refuses it before it sends a request.
///
/// Displays as one line: `pod.yaml:7:14: spec.containers[0].ports[0].containerPort: invalid
/// type: string "eighty", expected i32`, or `pod.yaml: message` when no line applies.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct InputError {
    /// The file the error is in.
    pub file: String,
    /// Line and column, when the error has a place inside the file.
    pub position: Option<(usize, usize)>,
    /// The field path (`spec.containers[0].image`), when one field is at fault.
    pub field_path: Option<String>,
    /// What is wrong, in kubectl's words where kubectl has words for it.
    pub message: String,
}

impl InputError {
    /// An error about the whole file (missing, too large).
    pub fn file(file: &str, message: impl Into<String>) -> InputError {
        InputError {
            file: file.to_owned(),
            position: None,
            field_path: None,
            message: one_line(&message.into()),
        }
    }

    /// An error at a place in the file.
    pub fn at(location: &Location, message: impl Into<String>) -> InputError {
        InputError {
            file: location.file.clone(),
            position: Some((location.line, location.column)),
            field_path: None,
            message: one_line(&message.into()),
        }
    }

    /// The same error, naming the field at fault.
    #[must_use]
    pub fn with_field_path(mut self, path: impl Into<String>) -> InputError {
        let path = path.into();
        if !path.is_empty() {
            self.field_path = Some(path);
        }
        self
    }

    /// Where the error is, when it has a place.
    pub fn location(&self) -> Option<Location> {
        self.position
            .map(|(line, column)| Location::new(&self.file, line, column))
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some((line, column)) = self.position {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": ")?;
        if let Some(path) = &self.field_path {
            write!(f, "{path}: ")?;
        }
        write!(f, "{}", self.message)
    }
}

/// Folds a message onto one line: kubectl puts `ensure CRDs are installed first`
/// on a line of its own; podflow's errors are one line, so line breaks become `; `.
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_as_one_line() {
        let at = Location::new("pod.yaml", 7, 14);
        assert_eq!(at.to_string(), "pod.yaml:7:14");
        let cases = [
            (
                InputError::at(&at, "invalid type: string \"eighty\", expected i32")
                    .with_field_path("spec.containers[0].ports[0].containerPort"),
                "pod.yaml:7:14: spec.containers[0].ports[0].containerPort: invalid type: string \"eighty\", expected i32",
            ),
            (
                InputError::file("x.yaml", "the path \"x.yaml\" does not exist"),
                "x.yaml: the path \"x.yaml\" does not exist",
            ),
            (
                InputError::at(
                    &at,
                    "no matches for kind \"Widget\" in version \"v1\"\nensure CRDs are installed first",
                ),
                "pod.yaml:7:14: no matches for kind \"Widget\" in version \"v1\"; ensure CRDs are installed first",
            ),
        ];
        for (error, want) in cases {
            assert_eq!(error.to_string(), want);
        }
    }
}
