//! The cluster language: one small command language, spelled as kubectl spells
//! it, shared by `--step`, lesson steps and the TUI's command bar (README.md, "Use").
//! Parsing is pure; reading the files a command names happens in [`resolve`].

mod parse;

pub use parse::{GetOptions, Output, ParseError, Parsed, parse};

use crate::kubectl::{Command, FileObject, Wait};

/// Turns a parsed command into the engine's command, reading the files it
/// names with `load` (which returns the manifests of one file, or an error).
pub fn resolve<E>(
    parsed: Parsed,
    mut load: impl FnMut(&str) -> Result<Vec<FileObject>, E>,
) -> Result<Command, E> {
    Ok(match parsed {
        Parsed::Apply { files, namespace } => {
            let mut manifests = Vec::new();
            for file in &files {
                manifests.extend(load(file)?);
            }
            Command::Apply {
                manifests,
                namespace,
            }
        }
        Parsed::Create { files, namespace } => {
            let mut manifests = Vec::new();
            for file in &files {
                manifests.extend(load(file)?);
            }
            Command::Create {
                manifests,
                namespace,
            }
        }
        Parsed::Get {
            kind,
            name,
            namespace,
            options,
        } => Command::Get {
            kind,
            name,
            namespace,
            options,
        },
        Parsed::Logs {
            pod,
            namespace,
            container,
            tail,
        } => Command::Logs {
            pod,
            namespace,
            container,
            tail,
        },
        Parsed::Label {
            kind,
            name,
            namespace,
            changes,
            overwrite,
            annotate,
        } => Command::Label {
            kind,
            name,
            namespace,
            changes,
            overwrite,
            annotate,
        },
        Parsed::Delete {
            kind,
            name,
            namespace,
            cascade,
        } => Command::Delete {
            kind,
            name,
            namespace,
            cascade,
        },
        Parsed::Scale {
            kind,
            name,
            namespace,
            replicas,
        } => Command::Scale {
            kind,
            name,
            namespace,
            replicas,
        },
        Parsed::Cordon { node } => Command::Cordon {
            node,
            unschedulable: true,
        },
        Parsed::Uncordon { node } => Command::Cordon {
            node,
            unschedulable: false,
        },
        Parsed::FaultNode { node } => Command::NodeFault {
            node,
            faulted: true,
        },
        Parsed::RecoverNode { node } => Command::NodeFault {
            node,
            faulted: false,
        },
        Parsed::WaitIdle => Command::Wait(Wait::Idle),
        Parsed::WaitFor(ms) => Command::Wait(Wait::For(ms)),
    })
}
