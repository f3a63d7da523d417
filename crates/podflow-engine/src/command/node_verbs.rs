//! Parses the node and service verbs: `taint` (`pkg/cmd/taint/taint.go`,
//! `Complete` and `Validate`), `drain` (`pkg/cmd/drain/drain.go`,
//! `Complete`) and `expose` (`pkg/cmd/expose/expose.go`), with kubectl's
//! words for their mistakes.

use super::args::Args;
use super::parse::{ParseError, err, is_node_kind, kind, kind_and_name, node_name, number};
use crate::clock::parse_duration;
use crate::kubectl::drain_plan::DrainFlags;
use crate::kubectl::taint_plan::{check_conflicts, parse_taints};
use crate::kubectl::{Command, DrainOptions, ExposeSpec};

/// `cmdutil.UsageErrorf`: the message and where to find help.
fn usage(verb: &str, message: &str) -> ParseError {
    ParseError(format!(
        "error: {message}\nSee 'kubectl {verb} -h' for help and examples"
    ))
}

/// `taint nodes NODE KEY=VALUE:EFFECT… [--overwrite]` (or `node/NODE`).
pub(super) fn taint(args: &Args) -> Result<Command, ParseError> {
    let mut resources: Vec<&String> = Vec::new();
    let mut taints: Vec<String> = Vec::new();
    for word in &args.positional {
        let is_taint = word.contains('=') || word.contains(':') || word.ends_with('-');
        match (taints.is_empty(), is_taint) {
            (_, true) => taints.push(word.clone()),
            (true, false) => resources.push(word),
            (false, false) => {
                return err(format!(
                    "error: all resources must be specified before taint changes: {word}"
                ));
            }
        }
    }
    let Some((first, names)) = resources.split_first() else {
        return err("error: one or more resources must be specified as <resource> <name>");
    };
    if taints.is_empty() {
        return err("error: at least one taint update is required");
    }
    let changes = parse_taints(&taints).map_err(|e| usage("taint", &e))?;
    let (resource_type, mut nodes): (&str, Vec<String>) = match first.split_once('/') {
        Some((k, n)) => (k, vec![n.to_owned()]),
        None => (first.as_str(), Vec::new()),
    };
    let resource_type = resource_type.to_ascii_lowercase();
    kind(&resource_type)?;
    if !is_node_kind(&resource_type) {
        return err(format!(
            "error: invalid resource type {resource_type}, only node types are supported"
        ));
    }
    check_conflicts(&changes).map_err(|e| ParseError(format!("error: {e}")))?;
    nodes.extend(names.iter().map(|n| (*n).clone()));
    match nodes.as_slice() {
        [] => err(
            "error: at least one resource name must be specified since 'all' parameter is not set",
        ),
        [node] => Ok(Command::Taint {
            node: node.clone(),
            changes,
            overwrite: args.overwrite,
        }),
        _ => err("error: podflow taints one node at a time"),
    }
}

/// `drain NODE [--force] [--ignore-daemonsets] [--delete-emptydir-data]
/// [--grace-period N] [--timeout DURATION]`.
pub(super) fn drain(args: &Args) -> Result<Command, ParseError> {
    let node = match args.positional.as_slice() {
        [] => return Err(usage("drain", "USAGE: drain NODE [flags]")),
        [node] => node_name(node),
        _ => return err("error: podflow drains one node at a time"),
    };
    let grace_period = number("--grace-period", args.grace_period.as_deref())?
        .map(i64::from)
        .filter(|g| *g >= 0);
    let timeout_ms = match args.timeout.as_deref() {
        None => None,
        Some("0") => Some(0),
        Some(text) => Some(parse_duration(text).ok_or_else(|| {
            ParseError(format!(
                "error: invalid argument \"{text}\" for \"--timeout\" flag: time: invalid duration \"{text}\""
            ))
        })?),
    };
    Ok(Command::Drain {
        node,
        options: DrainOptions {
            flags: DrainFlags {
                force: args.force,
                ignore_daemonsets: args.ignore_daemonsets,
                delete_emptydir_data: args.delete_emptydir_data,
            },
            grace_period,
            timeout_ms,
        },
    })
}

/// `expose KIND NAME` (or `KIND/NAME`) with `--port`, `--target-port`,
/// `--name`, `--type` and `--protocol`.
pub(super) fn expose(args: &Args) -> Result<Command, ParseError> {
    if args.positional.is_empty() {
        return err(
            "error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'",
        );
    }
    let (kind, name) = kind_and_name(&args.positional, "expose")?;
    let Some(name) = name else {
        return err("error: resource(s) were provided, but no name was specified");
    };
    Ok(Command::Expose {
        kind,
        name,
        namespace: args.namespace.clone(),
        spec: ExposeSpec {
            port: args.port.clone(),
            target_port: args.target_port.clone(),
            name: args.name.clone(),
            service_type: args.service_type.clone(),
            protocol: args.protocol.clone(),
        },
    })
}

#[cfg(test)]
mod tests {
    use crate::command::{Parsed, parse};
    use crate::kubectl::Command;

    fn e(line: &str) -> String {
        parse(line).unwrap_err().0
    }

    /// After `pkg/cmd/taint/taint_test.go`, `TestTaint`'s fatal cases, and
    /// pflag's words for a flag the verb lacks.
    #[test]
    fn node_verbs_refuse_as_kubectl_does() {
        assert_eq!(
            e("taint node node-1 foo=bar:NoExcute"),
            "error: invalid taint effect: NoExcute, unsupported taint effect\nSee 'kubectl taint -h' for help and examples"
        );
        assert!(
            e("taint node node-1 nospecialchars^@=banana:NoSchedule")
                .starts_with("error: invalid taint spec: nospecialchars^@=banana:NoSchedule, ")
        );
        assert_eq!(
            e("taint node node-1 foo=:NoExecute foo=:NoExecute-"),
            "error: can not both modify and remove the following taint(s) in the same command: foo=NoExecute"
        );
        assert_eq!(
            e("taint pods web foo=bar:NoSchedule"),
            "error: invalid resource type pods, only node types are supported"
        );
        assert_eq!(
            e("taint node foo=bar:NoSchedule"),
            "error: at least one resource name must be specified since 'all' parameter is not set"
        );
        assert_eq!(
            e("taint node node-1"),
            "error: at least one taint update is required"
        );
        assert_eq!(
            e("taint node a=b:NoSchedule node-1"),
            "error: all resources must be specified before taint changes: node-1"
        );
        assert_eq!(
            e("drain node-1 --delete-local-data"),
            "error: unknown flag: --delete-local-data"
        );
        assert_eq!(
            e("cordon node-1 -x"),
            "error: unknown shorthand flag: 'x' in -x"
        );
        assert_eq!(
            e("expose deploy web --replicas=2"),
            "error: unknown flag: --replicas"
        );
        assert_eq!(
            e("drain"),
            "error: USAGE: drain NODE [flags]\nSee 'kubectl drain -h' for help and examples"
        );
        assert_eq!(
            e("drain node-1 --timeout=soon"),
            "error: invalid argument \"soon\" for \"--timeout\" flag: time: invalid duration \"soon\""
        );
    }

    #[test]
    fn node_verbs_parse() {
        let Ok(Parsed::Ready(Command::Taint {
            node,
            changes,
            overwrite,
        })) = parse("taint node/node-1 dedicated=gpu:NoSchedule old- --overwrite")
        else {
            panic!("a taint");
        };
        assert_eq!((node.as_str(), overwrite), ("node-1", true));
        assert_eq!((changes.add.len(), changes.remove.len()), (1, 1));
        let Ok(Parsed::Ready(Command::Drain { node, options })) = parse(
            "drain node-2 --ignore-daemonsets --force --delete-emptydir-data --grace-period=5 --timeout 2m",
        ) else {
            panic!("a drain");
        };
        assert_eq!(node, "node-2");
        assert!(options.flags.force && options.flags.ignore_daemonsets);
        assert_eq!(
            (options.grace_period, options.timeout_ms),
            (Some(5), Some(120_000))
        );
        let Ok(Parsed::Ready(Command::Expose { name, spec, .. })) =
            parse("expose deployment web --port=80 --target-port=8080 --type=NodePort")
        else {
            panic!("an expose");
        };
        assert_eq!(name, "web");
        assert_eq!(spec.port.as_deref(), Some("80"));
        let Ok(Parsed::Ready(Command::GetMany { targets, .. })) = parse("get deploy,rs,po -o wide")
        else {
            panic!("a get of several kinds");
        };
        assert_eq!(targets.len(), 3);
        let Ok(Parsed::Ready(Command::GetMany { targets, .. })) = parse("get pod/a deploy/b")
        else {
            panic!("a get of several objects");
        };
        assert_eq!(targets[1].1.as_deref(), Some("b"));
    }
}
