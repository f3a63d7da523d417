//! The cluster language: one small command language, spelled as kubectl spells
//! it, shared by `--step`, lesson steps and the TUI's command bar (README.md, "Use").
//! Parsing is pure; reading the files a command names happens in [`resolve`].

mod args;
pub mod imperative;
mod node_verbs;
mod parse;

pub use parse::{GetOptions, Output, ParseError, Parsed, RolloutAction, parse};

use crate::kubectl::{Command, FileObject};

/// Turns a parsed command into the engine's command, reading the files it
/// names with `load` (which returns the manifests of one file, or an error).
pub fn resolve<E>(
    parsed: Parsed,
    mut load: impl FnMut(&str) -> Result<Vec<FileObject>, E>,
) -> Result<Command, E> {
    if let Parsed::As { user, parsed } = parsed {
        return Ok(Command::As {
            user,
            command: Box::new(resolve(*parsed, load)?),
        });
    }
    let mut read = |files: &[String]| -> Result<Vec<FileObject>, E> {
        let mut manifests = Vec::new();
        for file in files {
            manifests.extend(load(file)?);
        }
        Ok(manifests)
    };
    Ok(match parsed {
        Parsed::Apply { files, namespace } => Command::Apply {
            manifests: read(&files)?,
            namespace,
        },
        Parsed::Create { files, namespace } => Command::Create {
            manifests: read(&files)?,
            namespace,
        },
        Parsed::DeleteFiles {
            files,
            namespace,
            cascade,
        } => {
            let targets = read(&files)?
                .iter()
                .map(|manifest| {
                    let object = &manifest.object;
                    let ns = object.namespace().map(str::to_owned).or(namespace.clone());
                    (object.kind(), object.name().to_owned(), ns)
                })
                .collect();
            Command::DeleteObjects { targets, cascade }
        }
        Parsed::Ready(command) => command,
        // Taken apart above.
        Parsed::As { parsed, .. } => resolve(*parsed, load)?,
    })
}
