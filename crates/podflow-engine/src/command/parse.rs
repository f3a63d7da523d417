//! Parses one command of the cluster language: `apply -f FILE [-n NS]`,
//! `create -f FILE`, `describe KIND NAME`, `get KIND [NAME] [-n NS|-A] [-l SEL] [-o wide|yaml|json|name]
//! [--show-labels]`, `logs POD [-c C] [--tail N] [-p]`, `exec POD [-c C] -- CMD…`, `label|annotate KIND NAME
//! KEY=VALUE… KEY-… [--overwrite]`, `delete KIND NAME [--cascade=…]`, `scale KIND NAME
//! --replicas=N`, `patch KIND NAME -p PATCH [--type …] [--subresource …]`, `cordon NODE`, `uncordon NODE`, `taint`, `drain` and `expose`
//! (in [`node_verbs`](super::node_verbs)), `wait DURATION|idle`, with an
//! optional leading `kubectl` (or `k`), `TYPE/NAME` forms and kubectl's error wording;
//! and podflow's own `fault node NODE` / `recover node NODE` (no kubectl verb:
//! they cut a node off from the control plane and reconnect it).

use super::args::{Args, split_args, words};
use super::{imperative, node_verbs};
use crate::apiserver::request::{Propagation, UserInfo};
use crate::clock::parse_duration;
use crate::kubectl::{AccessTarget, Command, ExecPlan, FileObject, Wait};
use podflow_model::Kind;

/// A parsed command: ready to run, or naming files still to read.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// `apply -f FILE…`.
    Apply {
        files: Vec<String>,
        namespace: Option<String>,
    },
    /// `create -f FILE…`.
    Create {
        files: Vec<String>,
        namespace: Option<String>,
    },
    /// `delete -f FILE…`: each object of the files.
    DeleteFiles {
        files: Vec<String>,
        namespace: Option<String>,
        cascade: Propagation,
    },
    /// Any other command, which reads no file.
    Ready(Command),
    /// A command with `--as USER [--as-group G]…`.
    As { user: UserInfo, parsed: Box<Parsed> },
}

/// What `rollout` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RolloutAction {
    Status,
    History,
    /// `--to-revision` (0: the one before the current).
    Undo {
        to_revision: i64,
    },
    Restart,
}

/// How `get` prints (`-o`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Output {
    #[default]
    Table,
    Wide,
    Yaml,
    Json,
    Name,
    /// `-o jsonpath=TEMPLATE`.
    JsonPath(crate::kubectl_printers::jsonpath::Template),
}

impl Output {
    /// Whether kubectl prints a table (and says "No resources found" when
    /// nothing is found), rather than the objects in a format (`get.go`:
    /// `IsHumanReadablePrinter`).
    pub fn human_readable(&self) -> bool {
        matches!(self, Output::Table | Output::Wide)
    }
}

/// `get`'s options besides kind, name and namespace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GetOptions {
    pub output: Output,
    /// `-l`: a label selector.
    pub selector: Option<String>,
    /// `-A`: every namespace.
    pub all_namespaces: bool,
    /// `--show-labels`: a LABELS column.
    pub show_labels: bool,
    /// `-w`: after the list, watch and print each change as a row, until
    /// the next command.
    pub watch: bool,
}

/// Why a command could not be parsed, worded as kubectl words it where it has words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

pub(super) fn err<T>(message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError(message.into()))
}

/// `--cascade`'s value as kubectl reads it (`GetCascadingStrategy` in
/// `staging/src/k8s.io/kubectl/pkg/cmd/util/helpers.go`): `background`,
/// `foreground`, `orphan`, or the deprecated booleans (true: background,
/// false: orphan).
fn cascade(value: &str) -> Result<Propagation, ParseError> {
    Ok(match value {
        "background" | "1" | "t" | "T" | "TRUE" | "true" | "True" => Propagation::Background,
        "foreground" => Propagation::Foreground,
        "orphan" | "0" | "f" | "F" | "FALSE" | "false" | "False" => Propagation::Orphan,
        other => {
            return err(format!(
                "error: invalid cascade value ({other}). Must be \"background\", \"foreground\", or \"orphan\""
            ));
        }
    })
}

pub(super) fn kind(name: &str) -> Result<&'static Kind, ParseError> {
    Kind::lookup(name).ok_or_else(|| {
        ParseError(format!(
            "error: the server doesn't have a resource type \"{name}\""
        ))
    })
}

/// `KIND NAME` or `KIND/NAME`.
pub(super) fn kind_and_name(
    positional: &[String],
    verb: &str,
) -> Result<(&'static Kind, Option<String>), ParseError> {
    match positional {
        [] => err(format!(
            "error: You must specify the type of resource to {verb}. Use \"kubectl api-resources\" for a complete list of supported resources."
        )),
        [one] => match one.split_once('/') {
            Some((k, n)) => Ok((kind(k)?, Some(n.to_owned()))),
            None => Ok((kind(one)?, None)),
        },
        [k, n] => Ok((kind(k)?, Some(n.clone()))),
        _ => err(format!("error: too many arguments for {verb}")),
    }
}

/// Whether `word` names the Node kind (`node`, `nodes`, `no`).
pub(super) fn is_node_kind(word: &str) -> bool {
    Kind::lookup(word).is_some_and(|k| k.kind == "Node")
}

/// `scale KIND NAME --replicas=N`.
fn scale(
    positional: &[String],
    namespace: Option<String>,
    replicas: Option<&str>,
) -> Result<Command, ParseError> {
    let (kind, name) = kind_and_name(positional, "scale")?;
    let Some(name) = name else {
        return err("error: resource(s) were provided, but no name was specified");
    };
    let Some(replicas) = replicas else {
        return err("error: required flag(s) \"replicas\" not set");
    };
    match replicas.parse::<i32>() {
        Ok(n) if n >= 0 => Ok(Command::Scale {
            kind,
            name,
            namespace,
            replicas: n,
        }),
        _ => err(
            "error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0",
        ),
    }
}

/// `patch KIND NAME -p PATCH [--type strategic|merge|json] [--subresource
/// status|scale]`, checked as `PatchOptions.Validate` checks it.
fn patch(args: &Args) -> Result<Command, ParseError> {
    use crate::kubectl::patch::{PatchPlan, PatchType, parse_patch};
    let (kind, name) = kind_and_name(&args.positional, "patch")?;
    let Some(name) = name else {
        return err("error: resource(s) were provided, but no name was specified");
    };
    let Some(text) = &args.patch else {
        return err(
            "error: must specify --patch or --patch-file containing the contents of the patch",
        );
    };
    let patch_type = match &args.patch_type {
        Some(t) => PatchType::parse(t).map_err(ParseError)?,
        None => PatchType::Strategic,
    };
    Ok(Command::Patch(Box::new(PatchPlan {
        kind,
        name,
        namespace: args.namespace.clone(),
        patch_type,
        patch: parse_patch(text).map_err(ParseError)?,
        subresource: args.subresource.clone(),
    })))
}

/// `fault node NODE [memory-pressure]` / `recover node NODE` (also `node/NODE`).
fn node_fault(verb: &str, positional: &[String]) -> Result<Command, ParseError> {
    let (positional, memory) = match positional {
        [rest @ .., last] if verb == "fault" && last == "memory-pressure" => (rest, true),
        _ => (positional, false),
    };
    let node = match positional {
        [kind, node] if is_node_kind(kind) => Some(node.clone()),
        [one] => one
            .split_once('/')
            .filter(|(kind, _)| is_node_kind(kind))
            .map(|(_, node)| node.to_owned()),
        _ => None,
    };
    match node.filter(|n| !n.is_empty()) {
        Some(node) => Ok(Command::NodeFault {
            node,
            faulted: verb == "fault",
            memory,
        }),
        None if verb == "fault" => err("error: USAGE: fault node NODE [memory-pressure]"),
        None => err(format!("error: USAGE: {verb} node NODE")),
    }
}

/// Parses one command line.
pub fn parse(line: &str) -> Result<Parsed, ParseError> {
    let mut words = words(line)?;
    if matches!(words.first().map(String::as_str), Some("kubectl" | "k")) {
        words.remove(0);
    }
    let Some((verb, rest)) = words.split_first() else {
        return err("error: empty command");
    };
    let args = split_args(verb, rest)?;
    let parsed = parse_verb(verb, &args)?;
    match args.as_user.filter(|u| !u.is_empty()) {
        Some(name) => Ok(Parsed::As {
            user: UserInfo {
                name,
                groups: args.as_groups,
            },
            parsed: Box::new(parsed),
        }),
        // client-go's impersonating round tripper (`transport/round_trippers.go`).
        None if !args.as_groups.is_empty() => {
            err("error: requesting uid, groups or user-extra for  without impersonating a user")
        }
        None => Ok(parsed),
    }
}

/// The command `verb` names, with its arguments.
fn parse_verb(verb: &str, args: &Args) -> Result<Parsed, ParseError> {
    let namespace = args.namespace.clone();
    match verb {
        "apply" | "create" if !args.files.is_empty() || verb == "apply" => {
            if args.files.is_empty() {
                return err("error: must specify one of -f and -k");
            }
            if let Some(extra) = args.positional.first() {
                return err(format!("error: unexpected arguments: [{extra}]"));
            }
            let files = args.files.clone();
            Ok(if verb == "apply" {
                Parsed::Apply { files, namespace }
            } else {
                Parsed::Create { files, namespace }
            })
        }
        "delete" if !args.files.is_empty() => Ok(Parsed::DeleteFiles {
            files: args.files.clone(),
            namespace,
            cascade: cascade(args.cascade.as_deref().unwrap_or("background"))?,
        }),
        _ => command(verb, args).map(Parsed::Ready),
    }
}

/// A command that reads no file.
fn command(verb: &str, args: &Args) -> Result<Command, ParseError> {
    let (positional, namespace) = (&args.positional, args.namespace.clone());
    match verb {
        "create" => create(args),
        "run" => run(args),
        "set" => set_image(args),
        "edit" => match kind_and_name(positional, "edit")? {
            (kind, Some(name)) => Ok(Command::Edit {
                kind,
                name,
                namespace,
                change: None,
            }),
            (_, None) => err("error: podflow edits one object at a time: edit KIND NAME"),
        },
        "rollout" => rollout(args),
        "get" => get(args),
        "logs" => logs(args),
        "exec" => exec(args),
        "auth" => auth(args),
        "describe" => match kind_and_name(positional, "describe")? {
            (kind, Some(name)) => Ok(Command::Describe {
                kind,
                name,
                namespace,
            }),
            (_, None) => err("error: podflow describes one object at a time: describe KIND NAME"),
        },
        "label" | "annotate" => label(verb, args),
        "delete" => match kind_and_name(positional, "delete")? {
            (kind, Some(name)) => Ok(Command::Delete {
                kind,
                name,
                namespace,
                cascade: cascade(args.cascade.as_deref().unwrap_or("background"))?,
            }),
            (_, None) => err("error: resource(s) were provided, but no name was specified"),
        },
        "scale" => scale(positional, namespace, args.replicas.as_deref()),
        "patch" => patch(args),
        "cordon" | "uncordon" => match positional.as_slice() {
            [node] => Ok(Command::Cordon {
                node: node_name(node),
                unschedulable: verb == "cordon",
            }),
            _ => err(format!(
                "error: USAGE: {verb} NODE [flags]\nSee 'kubectl {verb} -h' for help and examples"
            )),
        },
        "taint" => node_verbs::taint(args),
        "drain" => node_verbs::drain(args),
        "expose" => node_verbs::expose(args),
        "fault" | "recover" => node_fault(verb, positional),
        "wait" => match positional.as_slice() {
            [what] if what == "idle" => Ok(Command::Wait(Wait::Idle)),
            [what] => parse_duration(what)
                .map(|ms| Command::Wait(Wait::For(ms)))
                .ok_or_else(|| {
                    ParseError(format!(
                        "error: invalid duration \"{what}\": use 500ms, 30s, 10m or idle"
                    ))
                }),
            _ => err("error: wait takes a duration (30s, 10m) or idle"),
        },
        other => err(unknown_command(other)),
    }
}

/// A number flag's value.
pub(super) fn number(flag: &str, value: Option<&str>) -> Result<Option<i32>, ParseError> {
    value
        .map(|v| {
            v.parse::<i32>().map_err(|_| {
                ParseError(format!(
                    "error: invalid argument \"{v}\" for \"{flag}\" flag: strconv.ParseInt: parsing \"{v}\": invalid syntax"
                ))
            })
        })
        .transpose()
}

/// `NAME`, the one positional argument `run` and `create KIND` take.
fn one_name(words: &[String]) -> Result<String, ParseError> {
    match words {
        [name] => Ok(name.clone()),
        other => err(format!(
            "error: exactly one NAME is required, got {}",
            other.len()
        )),
    }
}

/// A `create` of one object kubectl built, sent as `create -f` sends one.
fn created(object: podflow_model::Object, args: &Args) -> Command {
    Command::Create {
        manifests: vec![FileObject {
            object,
            unknown_fields: Vec::new(),
            type_error: None,
            source: String::new(),
        }],
        namespace: args.namespace.clone(),
    }
}

/// `run NAME --image=IMAGE [--restart=…] [--port=N] [--command] [-- ARGS…]`.
fn run(args: &Args) -> Result<Command, ParseError> {
    let name = one_name(&args.positional)?;
    let Some(image) = args.images.first() else {
        return err("error: required flag(s) \"image\" not set");
    };
    let spec = imperative::RunSpec {
        name,
        image: image.clone(),
        restart: args.restart.clone().unwrap_or_else(|| "Always".into()),
        command: args.command,
        args: args.after_dash.clone(),
        port: number("--port", args.port.as_deref())?,
    };
    Ok(created(imperative::run_pod(&spec)?, args))
}

/// `create deployment|namespace|configmap|secret generic NAME …`.
fn create(args: &Args) -> Result<Command, ParseError> {
    let Some((what, rest)) = args.positional.split_first() else {
        return err("error: must specify one of -f and -k");
    };
    let object = match what.as_str() {
        "deployment" | "deploy" => {
            let name = one_name(rest)?;
            if args.images.is_empty() {
                return err("error: required flag(s) \"image\" not set");
            }
            let replicas = number("--replicas", args.replicas.as_deref())?.unwrap_or(1);
            let port = number("--port", args.port.as_deref())?;
            imperative::deployment(&name, &args.images, replicas, port)?
        }
        "namespace" | "ns" => imperative::namespace(&one_name(rest)?)?,
        "configmap" | "cm" => {
            imperative::config_map(&one_name(rest)?, &imperative::literals(&args.literals)?)?
        }
        "secret" => match rest.split_first() {
            Some((kind, rest)) if kind == "generic" => {
                imperative::generic_secret(&one_name(rest)?, &imperative::literals(&args.literals)?)
            }
            _ => {
                return err(
                    "error: podflow creates only `secret generic NAME --from-literal=KEY=VALUE`",
                );
            }
        },
        other => {
            return err(format!(
                "error: unknown command \"{other}\" for \"kubectl create\"; podflow creates deployment, namespace, configmap and secret generic (or -f FILE)"
            ));
        }
    };
    Ok(created(object, args))
}

/// `set image KIND/NAME CONTAINER=IMAGE…` (or `KIND NAME …`).
fn set_image(args: &Args) -> Result<Command, ParseError> {
    let Some((what, rest)) = args.positional.split_first() else {
        return err("error: podflow sets only `set image KIND/NAME CONTAINER=IMAGE`");
    };
    if what != "image" {
        return err(format!(
            "error: unknown command \"{what}\" for \"kubectl set\"; podflow sets only image"
        ));
    }
    let (resource, pairs): (Vec<String>, Vec<String>) =
        rest.iter().cloned().partition(|w| !w.contains('='));
    let (kind, name) = kind_and_name(&resource, "set image")?;
    let Some(name) = name else {
        return err("error: resource(s) were provided, but no name was specified");
    };
    if pairs.is_empty() {
        return err("error: at least one image update is required");
    }
    let images = pairs
        .iter()
        .filter_map(|p| p.split_once('='))
        .map(|(c, i)| (c.to_owned(), i.to_owned()))
        .collect();
    Ok(Command::SetImage {
        kind,
        name,
        namespace: args.namespace.clone(),
        images,
    })
}

/// `rollout status|history|undo|restart deployment/NAME` (or `deployment NAME`).
fn rollout(args: &Args) -> Result<Command, ParseError> {
    let Some((action, rest)) = args.positional.split_first() else {
        return err("error: rollout needs one of status, history, undo, restart");
    };
    let action = match action.as_str() {
        "status" => RolloutAction::Status,
        "history" => RolloutAction::History,
        "restart" => RolloutAction::Restart,
        "undo" => RolloutAction::Undo {
            to_revision: number("--to-revision", args.to_revision.as_deref())?.map_or(0, i64::from),
        },
        other => {
            return err(format!(
                "error: unknown command \"{other}\" for \"kubectl rollout\""
            ));
        }
    };
    let (kind, name) = kind_and_name(rest, "rollout")?;
    if kind.kind != "Deployment" {
        return err(format!(
            "error: no history viewer has been implemented for {:?}",
            kind.kind
        ));
    }
    let Some(name) = name else {
        return err("error: resource(s) were provided, but no name was specified");
    };
    Ok(Command::Rollout {
        action,
        name,
        namespace: args.namespace.clone(),
    })
}

/// `auth can-i VERB RESOURCE[/SUB] [NAME] [-n NS] [-A]`, `auth can-i VERB
/// /PATH`, or `auth whoami`.
fn auth(args: &Args) -> Result<Command, ParseError> {
    match args.positional.split_first() {
        Some((what, rest)) if what == "whoami" && rest.is_empty() => Ok(Command::AuthWhoami),
        Some((what, rest)) if what == "can-i" => {
            let (verb, target, name) = match rest {
                [verb, target] => (verb, target, None),
                [verb, target, name] => (verb, target, Some(name.clone())),
                _ => {
                    return err(
                        "error: you must specify two or three arguments: verb, resource, and optional resourceName",
                    );
                }
            };
            let target = if target.starts_with('/') {
                AccessTarget::Path(target.clone())
            } else {
                let (resource, subresource) = match target.split_once('/') {
                    Some((r, s)) => (r, Some(s.to_owned())),
                    None => (target.as_str(), None),
                };
                // `deployments.apps`: the group after the first dot.
                let name = resource.split('.').next().unwrap_or(resource);
                AccessTarget::Resource {
                    kind: kind(name)?,
                    subresource,
                }
            };
            Ok(Command::AuthCanI {
                verb: verb.clone(),
                target,
                name,
                namespace: if args.all_namespaces {
                    Some(String::new())
                } else {
                    args.namespace.clone()
                },
            })
        }
        _ => err("error: podflow's auth has can-i and whoami"),
    }
}

/// Words a student types looking for a way to make a node fail.
const NODE_FAILURE_WORDS: &[&str] = &[
    "kubelet",
    "shutdown",
    "stop",
    "kill",
    "crash",
    "poweroff",
    "halt",
    "reboot",
    "fail",
    "break",
    "down",
    "disconnect",
];

/// kubectl's words for a verb it does not have; for one that sounds like
/// making a node fail, podflow's own verbs after them.
fn unknown_command(verb: &str) -> String {
    let mut message = format!("error: unknown command \"{verb}\" for \"kubectl\"");
    if NODE_FAILURE_WORDS.contains(&verb) {
        message.push_str(
            "\npodflow: to make a node fail, type `fault node NODE` (its kubelet loses the API server) or `fault node NODE memory-pressure` (its memory runs short); `recover node NODE` brings it back",
        );
    }
    message
}

/// `NODE` or `node/NODE`.
pub(super) fn node_name(word: &str) -> String {
    match word.split_once('/') {
        Some((kind, name)) if is_node_kind(kind) => name.to_owned(),
        _ => word.to_owned(),
    }
}

/// `get KIND [NAME]`, `get KIND,KIND… [NAME…]` or `get KIND/NAME…`
/// (`ResourceTypeOrNameArgs`).
fn get(args: &Args) -> Result<Command, ParseError> {
    let positional = &args.positional;
    let options = get_options(args)?;
    let namespace = args.namespace.clone();
    let slashed = positional.iter().filter(|w| w.contains('/')).count();
    let several = positional.len() > 2
        || positional.iter().any(|w| w.contains(','))
        || (positional.len() == 2 && slashed == 2);
    if !several {
        let (kind, name) = kind_and_name(positional, "get")?;
        return Ok(Command::Get {
            kind,
            name,
            namespace,
            options,
        });
    }
    let mut targets = Vec::new();
    if slashed == positional.len() {
        for word in positional {
            match word.split_once('/') {
                Some((k, n)) if !k.is_empty() && !n.is_empty() && !n.contains('/') => {
                    targets.push((kind(k)?, Some(n.to_owned())));
                }
                _ => {
                    return err(
                        "error: arguments in resource/name form must have a single resource and name",
                    );
                }
            }
        }
    } else if slashed > 0 {
        return err(
            "error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'",
        );
    } else {
        let Some((kinds, names)) = positional.split_first() else {
            return err("error: podflow's get needs a kind");
        };
        for k in kinds.split(',').filter(|k| !k.is_empty()) {
            let k = kind(k)?;
            if names.is_empty() {
                targets.push((k, None));
            }
            for name in names {
                targets.push((k, Some(name.clone())));
            }
        }
    }
    Ok(Command::GetMany {
        targets,
        namespace,
        options,
    })
}

/// `get`'s `-o`, `-l`, `-A` and `--show-labels`.
fn get_options(args: &Args) -> Result<GetOptions, ParseError> {
    let output = match args.output.as_deref() {
        None => Output::Table,
        Some("wide") => Output::Wide,
        Some("yaml") => Output::Yaml,
        Some("json") => Output::Json,
        Some("name") => Output::Name,
        Some(other) if other.starts_with("jsonpath=") => {
            let template = &other["jsonpath=".len()..];
            Output::JsonPath(
                crate::kubectl_printers::jsonpath::parse(template).map_err(ParseError)?,
            )
        }
        Some(other) => {
            return err(format!(
                "error: unable to match a printer suitable for the output format \"{other}\", allowed formats are: json,jsonpath,name,wide,yaml"
            ));
        }
    };
    if let Some(selector) = &args.selector {
        crate::store::selector::parse_labels(selector)
            .map_err(|e| ParseError(format!("error: {e}")))?;
    }
    Ok(GetOptions {
        output,
        selector: args.selector.clone(),
        all_namespaces: args.all_namespaces,
        show_labels: args.show_labels,
        watch: args.watch,
    })
}

/// `logs POD [CONTAINER]` or `logs pod/POD`, with `-c`, `--tail` and `-p`.
fn logs(args: &Args) -> Result<Command, ParseError> {
    let (pod, container) = match (args.positional.as_slice(), &args.container) {
        ([pod], container) => (pod, container.clone()),
        ([pod, container], None) => (pod, Some(container.clone())),
        ([], _) => {
            return err(
                "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command",
            );
        }
        _ => return err("error: only one of -c or an inline [CONTAINER] arg is allowed"),
    };
    let pod = pod
        .strip_prefix("pod/")
        .or_else(|| pod.strip_prefix("pods/"))
        .unwrap_or(pod)
        .to_owned();
    Ok(Command::Logs {
        pod,
        namespace: args.namespace.clone(),
        container,
        tail: tail(args)?,
        previous: args.previous,
    })
}

/// `exec POD [-c CONTAINER] [-i] [-t] -- COMMAND…` (or `TYPE/NAME`), read
/// as `ExecOptions.Complete` and `Validate` read cobra's arguments and
/// `ArgsLenAtDash` (`pkg/cmd/exec/exec.go`).
fn exec(args: &Args) -> Result<Command, ParseError> {
    let mut all = args.positional.clone();
    all.extend(args.after_dash.iter().cloned());
    let resource = all.first().filter(|_| args.dash_at != Some(0));
    let command = match args.dash_at {
        Some(at @ (0 | 1)) => all[at.min(all.len())..].to_vec(),
        _ if all.len() > 1 => {
            return err(
                "error: exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead\nSee 'kubectl exec -h' for help and examples",
            );
        }
        _ => Vec::new(),
    };
    let Some(resource) = resource else {
        return err("error: pod, type/name or --filename must be specified");
    };
    if command.is_empty() {
        return err("error: you must specify at least one command for the container");
    }
    let (kind, name) = match resource.split_once('/') {
        None => (podflow_model::kinds::kind_of("Pod"), resource.clone()),
        Some((k, name)) => (kind(k)?, name.to_owned()),
    };
    Ok(Command::Exec {
        kind,
        name,
        namespace: args.namespace.clone(),
        plan: ExecPlan {
            container: args.container.clone(),
            command,
            stdin: args.stdin,
            tty: args.tty,
            quiet: args.quiet,
        },
    })
}

fn tail(args: &Args) -> Result<Option<i64>, ParseError> {
    match args.tail.as_deref() {
        None => Ok(None),
        Some(n) => match n.parse::<i64>() {
            Ok(n) if n < 0 => Ok(None),
            Ok(n) => Ok(Some(n)),
            Err(_) => err(format!(
                "error: invalid argument \"{n}\" for \"--tail\" flag: strconv.ParseInt: parsing \"{n}\": invalid syntax"
            )),
        },
    }
}

/// `label`/`annotate KIND NAME KEY=VALUE… KEY-…` (or `KIND/NAME`).
fn label(verb: &str, args: &Args) -> Result<Command, ParseError> {
    let is_change = |w: &String| w.contains('=') || w.ends_with('-');
    let (resource, changes): (Vec<String>, Vec<String>) =
        args.positional.iter().cloned().partition(|w| !is_change(w));
    let (kind, name) = kind_and_name(&resource, verb)?;
    let Some(name) = name else {
        return err("error: resource(s) were provided, but no name was specified");
    };
    if changes.is_empty() {
        return err(format!("error: at least one {verb} update is required"));
    }
    let changes = changes
        .into_iter()
        .map(|change| match change.split_once('=') {
            Some((key, value)) => (key.to_owned(), Some(value.to_owned())),
            None => (change.trim_end_matches('-').to_owned(), None),
        })
        .collect();
    Ok(Command::Label {
        kind,
        name,
        namespace: args.namespace.clone(),
        changes,
        overwrite: args.overwrite,
        annotate: verb == "annotate",
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_model::kinds::kind_of;

    /// pkg/cmd/patch/patch.go: `-p`, `--type`, `--subresource`, and
    /// `Validate`'s words.
    #[test]
    fn patch_parses_as_kubectl_reads_it() {
        use crate::kubectl::patch::{PatchPlan, PatchType};
        assert_eq!(
            parse(r#"kubectl patch pod p --subresource=status --type merge -p '{"a":1}'"#).unwrap(),
            Parsed::Ready(Command::Patch(Box::new(PatchPlan {
                kind: kind_of("Pod"),
                name: "p".into(),
                namespace: None,
                patch_type: PatchType::Merge,
                patch: serde_json::json!({"a": 1}),
                subresource: Some("status".into()),
            })))
        );
        assert_eq!(
            parse("patch pod p").unwrap_err().0,
            "error: must specify --patch or --patch-file containing the contents of the patch"
        );
        assert_eq!(
            parse("patch pod p --type=apply -p {}").unwrap_err().0,
            "error: --type must be one of [json merge strategic], not \"apply\""
        );
    }

    #[test]
    fn commands_parse_as_kubectl_spells_them() {
        assert_eq!(
            parse("kubectl apply -f pod.yaml -n dev").unwrap(),
            Parsed::Apply {
                files: vec!["pod.yaml".into()],
                namespace: Some("dev".into())
            }
        );
        assert_eq!(
            parse("apply --filename=a.yaml -f 'b c.yaml'").unwrap(),
            Parsed::Apply {
                files: vec!["a.yaml".into(), "b c.yaml".into()],
                namespace: None
            }
        );
        assert_eq!(
            parse("get pods").unwrap(),
            Parsed::Ready(Command::Get {
                kind: kind_of("Pod"),
                name: None,
                namespace: None,
                options: GetOptions::default(),
            })
        );
        assert_eq!(
            parse("delete pod/nginx --namespace=dev").unwrap(),
            Parsed::Ready(Command::Delete {
                kind: kind_of("Pod"),
                name: "nginx".into(),
                namespace: Some("dev".into()),
                cascade: Propagation::Background,
            })
        );
        // kubectl's --cascade (GetCascadingStrategy), booleans deprecated but read.
        let cascades = [
            (
                "delete deploy web --cascade=foreground",
                Ok(Propagation::Foreground),
            ),
            (
                "delete deploy web --cascade=orphan",
                Ok(Propagation::Orphan),
            ),
            ("delete deploy web --cascade", Ok(Propagation::Background)),
            ("delete deploy web --cascade=false", Ok(Propagation::Orphan)),
            (
                "delete deploy web --cascade=sideways",
                Err(
                    "error: invalid cascade value (sideways). Must be \"background\", \"foreground\", or \"orphan\"",
                ),
            ),
        ];
        for (line, want) in cascades {
            let got = parse(line).map(|p| match p {
                Parsed::Ready(Command::Delete { cascade, .. }) => cascade,
                other => panic!("{other:?}"),
            });
            assert_eq!(got, want.map_err(|m| ParseError(m.to_owned())), "{line}");
        }
        assert_eq!(
            parse("scale deploy web --replicas=3").unwrap(),
            Parsed::Ready(Command::Scale {
                kind: kind_of("Deployment"),
                name: "web".into(),
                namespace: None,
                replicas: 3
            })
        );
        assert_eq!(
            parse("cordon node-1").unwrap(),
            Parsed::Ready(Command::Cordon {
                node: "node-1".into(),
                unschedulable: true,
            })
        );
        assert_eq!(
            parse("fault node node-1").unwrap(),
            Parsed::Ready(Command::NodeFault {
                node: "node-1".into(),
                faulted: true,
                memory: false,
            })
        );
        assert_eq!(
            parse("recover node/node-1").unwrap(),
            Parsed::Ready(Command::NodeFault {
                node: "node-1".into(),
                faulted: false,
                memory: false,
            })
        );
        assert_eq!(
            parse("wait 10m").unwrap(),
            Parsed::Ready(Command::Wait(Wait::For(600_000)))
        );
        assert_eq!(
            parse("wait idle").unwrap(),
            Parsed::Ready(Command::Wait(Wait::Idle))
        );
    }

    #[test]
    fn mistakes_get_kubectls_words() {
        let e = |line: &str| parse(line).unwrap_err().0;
        assert_eq!(
            e("frobnicate x"),
            r#"error: unknown command "frobnicate" for "kubectl""#
        );
        assert_eq!(
            e("get widgets"),
            r#"error: the server doesn't have a resource type "widgets""#
        );
        assert_eq!(e("apply"), "error: must specify one of -f and -k");
        assert_eq!(
            e("scale deploy web"),
            r#"error: required flag(s) "replicas" not set"#
        );
        assert_eq!(e("apply -f"), "error: flag needs an argument: 'f' in -f");
        assert_eq!(
            e("wait forever"),
            r#"error: invalid duration "forever": use 500ms, 30s, 10m or idle"#
        );
        assert_eq!(e(""), "error: empty command");
        assert_eq!(
            e("fault node-1"),
            "error: USAGE: fault node NODE [memory-pressure]"
        );
        assert_eq!(e("recover pod x"), "error: USAGE: recover node NODE");
        assert_eq!(e("get pod 'x"), "error: unterminated quote");
    }

    /// podflow's own `fault node NODE memory-pressure`.
    #[test]
    fn a_memory_fault_parses() {
        assert_eq!(
            parse("fault node node-2 memory-pressure").unwrap(),
            Parsed::Ready(Command::NodeFault {
                node: "node-2".into(),
                faulted: true,
                memory: true,
            })
        );
    }

    /// `TestPodAndContainer` (`pkg/cmd/exec/exec_test.go`): where the pod
    /// name and the command are, by cobra's `ArgsLenAtDash`.
    #[test]
    fn exec_reads_pod_and_command_as_exec_go_does() {
        let exec = |pod: &str, container: Option<&str>, command: &[&str]| {
            Ok(Parsed::Ready(Command::Exec {
                kind: kind_of("Pod"),
                name: pod.into(),
                namespace: None,
                plan: ExecPlan {
                    container: container.map(str::to_owned),
                    command: command.iter().map(|w| (*w).to_owned()).collect(),
                    stdin: false,
                    tty: false,
                    quiet: false,
                },
            }))
        };
        let usage = "error: exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead\nSee 'kubectl exec -h' for help and examples";
        let no_pod = "error: pod, type/name or --filename must be specified";
        let no_command = "error: you must specify at least one command for the container";
        let cases: [(&str, Result<Parsed, &str>); 11] = [
            ("exec", Err(no_pod)),
            ("exec foo", Err(no_command)),
            ("exec foo -c bar", Err(no_command)),
            ("exec -- foo cmd", Err(no_pod)),
            ("exec foo -- cmd", exec("foo", None, &["cmd"])),
            ("exec foo cmd", Err(usage)),
            ("exec foo -c bar cmd", Err(usage)),
            ("exec foo cmd -- bar", Err(usage)),
            (
                "exec foo --any-flag any-value",
                Err("error: unknown flag: --any-flag"),
            ),
            (
                "exec pod/foo -c bar -- sh -c 'echo hi'",
                exec("foo", Some("bar"), &["sh", "-c", "echo hi"]),
            ),
            (
                "exec foo -- ls -t /usr",
                exec("foo", None, &["ls", "-t", "/usr"]),
            ),
        ];
        for (line, want) in cases {
            assert_eq!(
                parse(line),
                want.map_err(|m| ParseError(m.to_owned())),
                "{line}"
            );
        }
        let Ok(Parsed::Ready(Command::Exec { plan, .. })) = parse("exec -it foo -- sh") else {
            panic!("exec -it parses");
        };
        assert!(plan.stdin && plan.tty);
    }

    /// `logs -p` (`--previous` of `pkg/cmd/logs/logs.go`) and the global
    /// `--as`/`--as-group` (client-go's impersonation round tripper).
    #[test]
    fn logs_previous_and_as_parse() {
        let Ok(Parsed::Ready(Command::Logs { previous, .. })) = parse("logs web -p") else {
            panic!("logs -p parses");
        };
        assert!(previous);
        let Ok(Parsed::Ready(Command::Logs { previous, .. })) = parse("logs web --previous=false")
        else {
            panic!("logs --previous=false parses");
        };
        assert!(!previous);
        assert_eq!(
            parse("auth can-i get pods --as jane --as-group dev --as-group ops"),
            Ok(Parsed::As {
                user: UserInfo::new("jane", &["dev", "ops"]),
                parsed: Box::new(Parsed::Ready(Command::AuthCanI {
                    verb: "get".into(),
                    target: AccessTarget::Resource {
                        kind: kind_of("Pod"),
                        subresource: None,
                    },
                    name: None,
                    namespace: None,
                })),
            })
        );
        assert_eq!(
            parse("get pods --as-group dev").unwrap_err().0,
            "error: requesting uid, groups or user-extra for  without impersonating a user"
        );
    }
}
