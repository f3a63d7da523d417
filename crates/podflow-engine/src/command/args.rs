//! One command line read as kubectl's cobra and pflag read it: the words
//! (quotes honoured), then each flag into its field of [`Args`] and the rest
//! as positional arguments, with pflag's words for a flag a verb does not
//! take.

use super::parse::{ParseError, err};

/// Splits a command line into words, honouring single and double quotes.
pub(super) fn words(line: &str) -> Result<Vec<String>, ParseError> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return err("error: unterminated quote");
    }
    if in_word {
        out.push(word);
    }
    Ok(out)
}

/// Options and positional arguments of one command: a field per kubectl flag.
#[derive(Default)]
#[allow(clippy::struct_excessive_bools)]
pub(super) struct Args {
    pub(super) positional: Vec<String>,
    pub(super) files: Vec<String>,
    pub(super) namespace: Option<String>,
    pub(super) replicas: Option<String>,
    pub(super) cascade: Option<String>,
    pub(super) selector: Option<String>,
    pub(super) output: Option<String>,
    pub(super) container: Option<String>,
    pub(super) tail: Option<String>,
    pub(super) all_namespaces: bool,
    pub(super) show_labels: bool,
    pub(super) overwrite: bool,
    pub(super) images: Vec<String>,
    pub(super) restart: Option<String>,
    pub(super) command: bool,
    pub(super) port: Option<String>,
    pub(super) literals: Vec<String>,
    pub(super) to_revision: Option<String>,
    /// The words after `--` (`run NAME --image=… -- sleep 60`).
    pub(super) after_dash: Vec<String>,
    /// `drain`'s flags.
    pub(super) force: bool,
    pub(super) ignore_daemonsets: bool,
    pub(super) delete_emptydir_data: bool,
    pub(super) grace_period: Option<String>,
    pub(super) timeout: Option<String>,
    /// `expose`'s flags (`--port` is shared with `run`).
    pub(super) target_port: Option<String>,
    pub(super) name: Option<String>,
    pub(super) service_type: Option<String>,
    pub(super) protocol: Option<String>,
    /// `logs -p`: the previous instance's output.
    pub(super) previous: bool,
    /// `get -w`.
    pub(super) watch: bool,
    /// How many positional arguments came before `--`, if it was given
    /// (cobra's `ArgsLenAtDash`).
    pub(super) dash_at: Option<usize>,
    /// `exec -i`, `-t` and `-q`.
    pub(super) stdin: bool,
    pub(super) tty: bool,
    pub(super) quiet: bool,
    /// `patch`'s `-p`, `--type` and `--subresource`.
    pub(super) patch: Option<String>,
    pub(super) patch_type: Option<String>,
    pub(super) subresource: Option<String>,
    /// kubectl's global `--as` and `--as-group`.
    pub(super) as_user: Option<String>,
    pub(super) as_groups: Vec<String>,
}

/// The flags each node or service verb takes (and `-n`, a global flag):
/// any other is refused as pflag refuses it.
fn verb_flags(verb: &str) -> Option<&'static [&'static str]> {
    Some(match verb {
        "cordon" | "uncordon" => &["-n", "--namespace"],
        "taint" => &["-n", "--namespace", "--overwrite"],
        "drain" => &[
            "-n",
            "--namespace",
            "--force",
            "--ignore-daemonsets",
            "--delete-emptydir-data",
            "--grace-period",
            "--timeout",
        ],
        "expose" => &[
            "-n",
            "--namespace",
            "--port",
            "--target-port",
            "--name",
            "--type",
            "--protocol",
        ],
        _ => return None,
    })
}

/// pflag's words for a flag the command does not define.
fn unknown_flag(flag: &str) -> ParseError {
    if flag.starts_with("--") {
        ParseError(format!("error: unknown flag: {flag}"))
    } else {
        let shorthands = flag.trim_start_matches('-');
        let first = shorthands.chars().next().unwrap_or('-');
        ParseError(format!(
            "error: unknown shorthand flag: '{first}' in -{shorthands}"
        ))
    }
}

/// A boolean flag's value: bare is true, `--flag=false` is false.
fn boolean(flag: &str, inline: Option<&str>) -> Result<bool, ParseError> {
    match inline {
        None | Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(other) => err(format!(
            "error: invalid argument \"{other}\" for \"{flag}\" flag: strconv.ParseBool: parsing \"{other}\": invalid syntax"
        )),
    }
}

pub(super) fn split_args(verb: &str, words: &[String]) -> Result<Args, ParseError> {
    let mut args = Args::default();
    let mut it = words.iter();
    while let Some(word) = it.next() {
        if word == "--" {
            args.dash_at = Some(args.positional.len());
            args.after_dash = it.by_ref().cloned().collect();
            break;
        }
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_owned())),
            _ => (word.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String, ParseError> {
            match inline.clone().or_else(|| it.next().cloned()) {
                Some(v) => Ok(v),
                None => err(format!("error: flag needs an argument: {name}")),
            }
        };
        let inline_bool = inline.as_deref();
        if flag.starts_with('-')
            && flag.len() > 1
            && verb_flags(verb).is_some_and(|allowed| !allowed.contains(&flag))
        {
            return Err(unknown_flag(flag));
        }
        let node_verb = verb_flags(verb).is_some();
        match flag {
            "--force" if node_verb => args.force = boolean(flag, inline_bool)?,
            "--ignore-daemonsets" if node_verb => {
                args.ignore_daemonsets = boolean(flag, inline_bool)?;
            }
            "--delete-emptydir-data" if node_verb => {
                args.delete_emptydir_data = boolean(flag, inline_bool)?;
            }
            "--grace-period" if node_verb => args.grace_period = Some(value("--grace-period")?),
            "--timeout" if node_verb => args.timeout = Some(value("--timeout")?),
            "--target-port" if node_verb => args.target_port = Some(value("--target-port")?),
            "--name" if node_verb => args.name = Some(value("--name")?),
            "--type" if node_verb => args.service_type = Some(value("--type")?),
            "--protocol" if node_verb => args.protocol = Some(value("--protocol")?),
            // In `logs`, -f is --follow: the output so far is printed, and
            // what the container prints later shows in the logs pane anyway.
            "-f" | "--follow" if verb == "logs" => {
                boolean(flag, inline_bool)?;
            }
            "-i" | "--stdin" if verb == "exec" => args.stdin = boolean(flag, inline_bool)?,
            "-t" | "--tty" if verb == "exec" => args.tty = boolean(flag, inline_bool)?,
            "-it" | "-ti" if verb == "exec" => (args.stdin, args.tty) = (true, true),
            "-q" | "--quiet" if verb == "exec" => args.quiet = boolean(flag, inline_bool)?,
            "-p" | "--previous" if verb == "logs" => args.previous = boolean(flag, inline_bool)?,
            "-p" | "--patch" if verb == "patch" => args.patch = Some(value("'p' in -p")?),
            "--type" if verb == "patch" => args.patch_type = Some(value("--type")?),
            "--subresource" if verb == "patch" => args.subresource = Some(value("--subresource")?),
            "-f" | "--filename" => args.files.push(value("'f' in -f")?),
            "-l" | "--selector" => args.selector = Some(value("'l' in -l")?),
            "-o" | "--output" => args.output = Some(value("'o' in -o")?),
            "-c" | "--container" => args.container = Some(value("'c' in -c")?),
            "--tail" => args.tail = Some(value("--tail")?),
            "-A" | "--all-namespaces" => args.all_namespaces = boolean(flag, inline_bool)?,
            "--show-labels" => args.show_labels = boolean(flag, inline_bool)?,
            "-w" | "--watch" if verb == "get" => args.watch = boolean(flag, inline_bool)?,
            "--overwrite" => args.overwrite = boolean(flag, inline_bool)?,
            "--image" => args.images.push(value("--image")?),
            "--restart" => args.restart = Some(value("--restart")?),
            "--command" => args.command = boolean(flag, inline_bool)?,
            "--port" => args.port = Some(value("--port")?),
            "--from-literal" => args.literals.push(value("--from-literal")?),
            "--to-revision" => args.to_revision = Some(value("--to-revision")?),
            "-n" | "--namespace" => args.namespace = Some(value("'n' in -n")?),
            "--as" => args.as_user = Some(value("--as")?),
            "--as-group" => args.as_groups.push(value("--as-group")?),
            "--replicas" => args.replicas = Some(value("--replicas")?),
            // A bare `--cascade` means background (the flag's NoOptDefVal).
            "--cascade" => {
                args.cascade = Some(inline.clone().unwrap_or_else(|| "background".into()));
            }
            f if f.starts_with('-') && f.len() > 1 => return Err(unknown_flag(f)),
            _ => args.positional.push(word.clone()),
        }
    }
    Ok(args)
}
