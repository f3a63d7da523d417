//! The commands a container's shell knows: the busybox applets the
//! Kubernetes examples use (`sleep`, `echo`, `cat`, `touch`, `rm`, `test`, …),
//! with busybox's messages and exit statuses. Network tools are in `net.rs`.

use std::fmt::Write as _;

use super::{Io, Outcome, Shell, Sys, load};

/// The commands this shell knows (a container's bare command among them runs here).
pub const KNOWN: [&str; 44] = [
    "true", ":", "trap", "set", "ulimit", "wait", "shift", "read", "false", "sleep", "exit",
    "exec", "command", "nohup", "timeout", "echo", "printf", "printenv", "env", "export", "unset",
    "cd", "pwd", "test", "[", "[[", "touch", "rm", "cat", "mkdir", "ls", "tail", "grep", "wc",
    "seq", "head", "nslookup", "wget", "curl", "date", "hostname", "sh", "bash", "ash",
];

/// Runs `argv` (a builtin or a busybox applet); an unknown name is `not found` (127).
pub fn run(sh: &mut Shell, sys: &mut Sys, argv: &[String], io: &mut Io) -> Outcome {
    let Some(first) = argv.first() else {
        return Outcome::Status(0);
    };
    let name = first.rsplit('/').next().unwrap_or(first);
    let rest = &argv[1..];
    let status = match name {
        "true" | ":" | "trap" | "set" | "ulimit" | "wait" | "shift" | "read" => 0,
        "false" => 1,
        "sleep" => return sleep(rest, io),
        "exit" => return exit(sh, rest, io),
        "exec" if rest.is_empty() => 0,
        "exec" | "command" | "nohup" | "timeout" => {
            let skip = usize::from(name == "timeout");
            return run(sh, sys, &rest[skip.min(rest.len())..], io);
        }
        "sh" | "ash" | "bash" | "dash" => return shell(sh, sys, name, rest, io),
        "echo" => echo(rest, io),
        "printf" => printf(rest, io),
        "printenv" => printenv(sh, rest, io),
        "env" => {
            for (key, value) in sh.vars.exported() {
                let _ = writeln!(io.out, "{key}={value}");
            }
            0
        }
        "export" => {
            for arg in rest {
                match arg.split_once('=') {
                    Some((key, value)) => {
                        sh.vars.set(key, value);
                        sh.vars.export(key);
                    }
                    None => sh.vars.export(arg),
                }
            }
            0
        }
        "unset" => {
            for name in rest {
                sh.vars.unset(name);
            }
            0
        }
        "cd" => {
            let target = sh.path(rest.first().map_or("/root", String::as_str));
            if sys.fs.is_dir(&target) {
                sh.cwd = target;
                0
            } else {
                let _ = writeln!(
                    io.err,
                    "{}: cd: can't cd to {}: No such file or directory",
                    sh.name,
                    rest.first().map_or("", String::as_str)
                );
                2
            }
        }
        "pwd" => {
            let _ = writeln!(io.out, "{}", sh.cwd);
            0
        }
        "test" | "[" | "[[" => super::test::test(sh, sys, name, rest, io),
        "touch" | "rm" | "cat" | "mkdir" | "ls" => super::files::files(sh, sys, name, rest, io),
        "tail" if rest.iter().any(|a| a == "-f" || a == "-F") => return Outcome::Sleep(None),
        "grep" | "wc" | "seq" | "tail" | "head" => super::files::text_tool(sh, sys, name, rest, io),
        "nslookup" | "wget" | "curl" | "date" | "hostname" => {
            super::net::run(sh, sys, name, rest, io)
        }
        "nginx"
            if sys.programs.iter().any(|p| p == name)
                && rest.first().is_some_and(|a| a == "-s") =>
        {
            nginx_signal(sys, rest.get(1).map_or("", String::as_str), io)
        }
        _ if sys.programs.iter().any(|p| p == name) => {
            sh.serving = true;
            return Outcome::Sleep(None);
        }
        _ => {
            if sh.name == "bash" {
                let _ = writeln!(io.err, "bash: line 1: {first}: command not found");
            } else {
                let _ = writeln!(io.err, "{}: {first}: not found", sh.name);
            }
            127
        }
    };
    Outcome::Status(status)
}

/// `nginx -s SIGNAL` (`src/core/nginx.c`): `quit` and `stop` end the running
/// master (a graceful or a fast shutdown, both instant here); `reload` and
/// `reopen` change nothing the simulation shows.
fn nginx_signal(sys: &mut Sys, signal: &str, io: &mut Io) -> i32 {
    match signal {
        "quit" | "stop" => {
            sys.stop_server = true;
            0
        }
        "reload" | "reopen" => 0,
        "" => {
            io.err.push_str("nginx: option \"-s\" requires parameter\n");
            1
        }
        other => {
            let _ = writeln!(io.err, "nginx: invalid option: \"-s {other}\"");
            1
        }
    }
}

/// `sleep N[smhd]` (decimals allowed) or `sleep infinity`.
fn sleep(args: &[String], io: &mut Io) -> Outcome {
    if args.is_empty() {
        io.err.push_str("sleep: missing operand\n");
        return Outcome::Status(1);
    }
    let mut total: u64 = 0;
    for arg in args {
        if arg == "infinity" || arg == "inf" {
            return Outcome::Sleep(None);
        }
        let (number, factor) = match arg.char_indices().last() {
            Some((i, 's')) => (&arg[..i], 1000.0),
            Some((i, 'm')) => (&arg[..i], 60_000.0),
            Some((i, 'h')) => (&arg[..i], 3_600_000.0),
            Some((i, 'd')) => (&arg[..i], 86_400_000.0),
            _ => (arg.as_str(), 1000.0),
        };
        match number.parse::<f64>() {
            Ok(value) if value >= 0.0 && value.is_finite() && !number.starts_with('+') => {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let ms = (value * factor).round().min(1e15) as u64;
                total = total.saturating_add(ms);
            }
            _ => {
                let _ = writeln!(io.err, "sleep: invalid number '{arg}'");
                return Outcome::Status(1);
            }
        }
    }
    Outcome::Sleep(Some(total))
}

/// `exit [N]`: N modulo 256; without N, the last status.
fn exit(sh: &Shell, args: &[String], io: &mut Io) -> Outcome {
    match args.first() {
        None => Outcome::Exit(sh.status),
        Some(arg) => {
            if let Ok(code) = arg.parse::<i64>() {
                Outcome::Exit(i32::try_from(code.rem_euclid(256)).unwrap_or(0))
            } else {
                let _ = writeln!(io.err, "{}: exit: Illegal number: {arg}", sh.name);
                Outcome::Exit(2)
            }
        }
    }
}

/// `sh -c SCRIPT [NAME [ARG…]]`, `sh FILE`, or `sh` alone (no input: exits 0).
fn shell(sh: &Shell, sys: &mut Sys, name: &str, args: &[String], io: &mut Io) -> Outcome {
    let mut rest = args;
    while let Some(flag) = rest.first().filter(|a| a.starts_with('-') && *a != "-c") {
        let _ = flag;
        rest = &rest[1..];
    }
    let (script, params) = match rest {
        [c, script, params @ ..] if c == "-c" => (script.clone(), params),
        [c] if c == "-c" => {
            let _ = writeln!(io.err, "{name}: -c requires an argument");
            return Outcome::Status(2);
        }
        [file, params @ ..] => match sys.fs.read(&sh.path(file)) {
            Ok(text) => (text.to_string(), params),
            Err(e) => {
                let _ = writeln!(io.err, "{name}: can't open '{file}': {}", e.text());
                return Outcome::Status(2);
            }
        },
        [] => return Outcome::Status(0),
    };
    let mut positional = vec![params.first().cloned().unwrap_or_else(|| name.to_string())];
    positional.extend(params.iter().skip(1).cloned());
    match load(&script) {
        Ok(code) => Outcome::Script(code, positional),
        Err(message) => {
            let _ = writeln!(io.err, "{name}: {message}");
            Outcome::Status(2)
        }
    }
}

/// `echo [-n] [-e] ARG…`.
fn echo(args: &[String], io: &mut Io) -> i32 {
    let (mut newline, mut escapes, mut start) = (true, false, 0);
    for arg in args {
        let flags = arg
            .strip_prefix('-')
            .filter(|f| !f.is_empty() && f.chars().all(|c| "neE".contains(c)));
        let Some(flags) = flags else { break };
        for c in flags.chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        start += 1;
    }
    let text = args[start..].join(" ");
    if escapes {
        let (text, stop) = unescape(&text);
        io.out.push_str(&text);
        if stop {
            return 0;
        }
    } else {
        io.out.push_str(&text);
    }
    if newline {
        io.out.push('\n');
    }
    0
}

/// Backslash escapes of `echo -e` and `printf`; true when `\c` stops the output.
fn unescape(text: &str) -> (String, bool) {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') | None => out.push('\\'),
            Some('c') => return (out, true),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    (out, false)
}

/// `printf FORMAT [ARG…]`: `%s`, `%d`, `%%` and backslash escapes.
fn printf(args: &[String], io: &mut Io) -> i32 {
    let Some((format, mut rest)) = args.split_first() else {
        io.err.push_str("printf: missing format\n");
        return 1;
    };
    let (format, _) = unescape(format);
    loop {
        let before = rest.len();
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                io.out.push(c);
                continue;
            }
            match chars.next() {
                Some('%') | None => io.out.push('%'),
                Some('s' | 'd' | 'i' | 'u') => {
                    let (value, tail) = rest
                        .split_first()
                        .map_or((String::new(), rest), |(v, t)| (v.clone(), t));
                    io.out.push_str(&value);
                    rest = tail;
                }
                Some(other) => {
                    io.out.push('%');
                    io.out.push(other);
                }
            }
        }
        if rest.is_empty() || rest.len() == before {
            return 0;
        }
    }
}

/// `printenv [NAME…]`: the exported variables; 1 when one is missing.
fn printenv(sh: &Shell, args: &[String], io: &mut Io) -> i32 {
    if args.is_empty() {
        for (key, value) in sh.vars.exported() {
            let _ = writeln!(io.out, "{key}={value}");
        }
        return 0;
    }
    let mut status = 0;
    for name in args {
        match sh.vars.exported().find(|(k, _)| k == name) {
            Some((_, value)) => {
                let _ = writeln!(io.out, "{value}");
            }
            None => status = 1,
        }
    }
    status
}
