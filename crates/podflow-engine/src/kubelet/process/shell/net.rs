//! The tools that reach beyond the container: `nslookup` (cluster DNS through
//! [`World::lookup`]), `wget` (busybox) and `curl` (through
//! [`World::http_get`]), and `date`/`hostname`. Output follows busybox's
//! (`nslookup` as 1.28 printed it for old images, as 1.36 prints it for the
//! rest) and curl's error lines. `World` answers status codes only, so the
//! bodies fetched are empty. A public name comes back forwarded (busybox
//! 1.36's `Non-authoritative answer:`), fails as `NXDOMAIN`, or as
//! `SERVFAIL` when `CoreDNS` has no way out; wget (`bad address`) and curl
//! (`(6) Could not resolve host`) fail alike on both.

use std::fmt::Write as _;

use super::{Io, Shell, Sys};
use crate::kubelet::process::{Answer, World};

/// Where the service-account volume puts the Pod's namespace.
pub const NAMESPACE_FILE: &str = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/// Runs one of the network tools.
pub fn run(sh: &Shell, sys: &mut Sys, name: &str, args: &[String], io: &mut Io) -> i32 {
    match name {
        "nslookup" => nslookup(sys, args, io),
        "wget" => wget(sh, sys, args, io),
        "curl" => curl(sys, args, io),
        "date" => {
            io.out
                .push_str(&date(sys.now, args.first().map(String::as_str)));
            io.out.push('\n');
            0
        }
        _ => {
            // The UTS name the kubelet gave the sandbox, which it also writes
            // to /etc/hostname; a `HOSTNAME` variable does not change it.
            let name = sys
                .fs
                .read("/etc/hostname")
                .ok()
                .map(|t| t.trim().to_string())
                .or_else(|| sh.vars.get("HOSTNAME").map(ToString::to_string))
                .unwrap_or_else(|| "localhost".to_string());
            let _ = writeln!(io.out, "{name}");
            0
        }
    }
}

/// `name` completed with the Pod's search domains, as the resolver does.
fn fqdn(sys: &Sys, name: &str) -> String {
    let name = name.trim_end_matches('.');
    if name.ends_with(".cluster.local") {
        return name.to_string();
    }
    if name.rsplit('.').next() == Some("svc") && name.contains('.') {
        return format!("{name}.cluster.local");
    }
    if name.contains('.') {
        return format!("{name}.svc.cluster.local");
    }
    let namespace = sys.fs.read(NAMESPACE_FILE).map_or("default", str::trim);
    format!("{name}.{namespace}.svc.cluster.local")
}

fn nslookup(sys: &mut Sys, args: &[String], io: &mut Io) -> i32 {
    let Some(name) = args.iter().find(|a| !a.starts_with('-')) else {
        io.err.push_str("BusyBox nslookup: missing HOST\n");
        return 1;
    };
    let dns = sys
        .world
        .lookup("kube-dns.kube-system.svc.cluster.local")
        .address()
        .map_or_else(|| "10.96.0.10".to_string(), ToString::to_string);
    let full = fqdn(sys, name);
    let answer = sys.world.lookup(name);
    // A name CoreDNS forwarded is shown as asked; a cluster one as the search path completed it.
    let shown = if podflow_scenario::looks_public(name) {
        name.trim_end_matches('.').to_string()
    } else {
        full.clone()
    };
    if sys.old_busybox {
        let _ = write!(
            io.out,
            "Server:    {dns}\nAddress 1: {dns} kube-dns.kube-system.svc.cluster.local\n\n"
        );
        return match answer {
            Answer::Cluster(ip) => {
                let _ = write!(io.out, "Name:      {name}\nAddress 1: {ip} {full}\n");
                0
            }
            Answer::Public(ip) => {
                let _ = write!(io.out, "Name:      {name}\nAddress 1: {ip}\n");
                0
            }
            Answer::NoSuchName | Answer::ServerFailure => {
                let _ = writeln!(io.err, "nslookup: can't resolve '{name}'");
                1
            }
        };
    }
    let _ = write!(io.out, "Server:\t\t{dns}\nAddress:\t{dns}:53\n\n");
    // busybox 1.36 asks for A and AAAA and prints each reply's failure.
    let failed = |io: &mut Io, rcode: &str| {
        let _ = write!(
            io.out,
            "** server can't find {shown}: {rcode}\n\n** server can't find {shown}: {rcode}\n\n"
        );
        1
    };
    match answer {
        Answer::Cluster(ip) => {
            let _ = write!(io.out, "Name:\t{full}\nAddress: {ip}\n\n");
            0
        }
        Answer::Public(ip) => {
            let _ = write!(
                io.out,
                "Non-authoritative answer:\nName:\t{shown}\nAddress: {ip}\n\n"
            );
            0
        }
        Answer::NoSuchName => failed(io, "NXDOMAIN"),
        Answer::ServerFailure => failed(io, "SERVFAIL"),
    }
}

/// A URL's host, port and path (`http` when no scheme is given).
struct Url {
    host: String,
    port: u16,
    path: String,
}

fn parse_url(url: &str) -> Url {
    let (default_port, rest) = match url.split_once("://") {
        Some(("https", rest)) => (443, rest),
        Some((_, rest)) => (80, rest),
        None => (80, url),
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) => (host, port.parse().unwrap_or(default_port)),
        None => (authority, default_port),
    };
    Url {
        host: host.to_string(),
        port,
        path: path.to_string(),
    }
}

/// The address `host` resolves to: itself when it is an IP address.
fn resolve(world: &dyn World, host: &str) -> Option<String> {
    if host.parse::<std::net::IpAddr>().is_ok() {
        return Some(host.to_string());
    }
    world.lookup(host).address().map(ToString::to_string)
}

fn reason_phrase(code: u16) -> &'static str {
    match code {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// busybox `wget [-q] [-O FILE] [--spider] URL`.
fn wget(sh: &Shell, sys: &mut Sys, args: &[String], io: &mut Io) -> i32 {
    let (mut quiet, mut spider, mut target, mut url) = (false, false, None, None);
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "-q" | "--quiet" => quiet = true,
            "-qO-" | "-qO" => {
                quiet = true;
                target = Some(if arg == "-qO-" {
                    "-".to_string()
                } else {
                    iter.next().cloned().unwrap_or_default()
                });
            }
            "-O" => target = iter.next().cloned(),
            "--spider" | "-s" => spider = true,
            "-T" | "--timeout" | "-U" => {
                iter.next();
            }
            a if a.starts_with("-O") => target = Some(a[2..].to_string()),
            a if a.starts_with('-') => {}
            a => url = Some(a.to_string()),
        }
    }
    let Some(url) = url else {
        io.err.push_str("BusyBox wget: missing URL\n");
        return 1;
    };
    let parsed = parse_url(&url);
    let Some(ip) = resolve(sys.world, &parsed.host) else {
        let _ = writeln!(io.err, "wget: bad address '{}'", parsed.host);
        return 1;
    };
    if !quiet {
        let _ = writeln!(
            io.err,
            "Connecting to {} ({ip}:{})",
            parsed.host, parsed.port
        );
    }
    match sys.world.http_get(&url) {
        None => {
            let _ = writeln!(
                io.err,
                "wget: can't connect to remote host ({ip}): Connection refused"
            );
            1
        }
        Some(code) if code >= 400 => {
            let _ = writeln!(
                io.err,
                "wget: server returned error: HTTP/1.1 {code} {}",
                reason_phrase(code)
            );
            1
        }
        Some(_) if spider => {
            if !quiet {
                io.err.push_str("remote file exists\n");
            }
            0
        }
        Some(_) => {
            let file = target.unwrap_or_else(|| {
                let last = parsed.path.rsplit('/').next().unwrap_or("");
                if last.is_empty() {
                    "index.html".to_string()
                } else {
                    last.to_string()
                }
            });
            if file == "-" {
                if !quiet {
                    io.err.push_str("writing to stdout\n");
                }
                return 0;
            }
            if !quiet {
                let _ = write!(io.err, "saving to '{file}'\n'{file}' saved\n");
            }
            let _ = sys.fs.write(&sh.path(&file), "", false);
            0
        }
    }
}

/// `curl [-s] [-S] [-f] [-o FILE] URL`.
fn curl(sys: &mut Sys, args: &[String], io: &mut Io) -> i32 {
    let (mut silent, mut show_error, mut fail, mut url) = (false, false, false, None);
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "-o" | "-m" | "--max-time" | "-H" | "-X" | "-w" | "--connect-timeout" => {
                iter.next();
            }
            a if a.starts_with("--") => fail |= a == "--fail",
            a if a.starts_with('-') => {
                silent |= a.contains('s');
                show_error |= a.contains('S');
                fail |= a.contains('f');
            }
            a => url = Some(a.to_string()),
        }
    }
    let Some(url) = url else {
        io.err.push_str("curl: no URL specified\n");
        return 2;
    };
    let parsed = parse_url(&url);
    let speak = !silent || show_error;
    if resolve(sys.world, &parsed.host).is_none() {
        if speak {
            let _ = writeln!(io.err, "curl: (6) Could not resolve host: {}", parsed.host);
        }
        return 6;
    }
    match sys.world.http_get(&url) {
        None => {
            if speak {
                let _ = writeln!(
                    io.err,
                    "curl: (7) Failed to connect to {} port {} after 0 ms: Couldn't connect to server",
                    parsed.host, parsed.port
                );
            }
            7
        }
        Some(code) if fail && code >= 400 => {
            if speak {
                let _ = writeln!(
                    io.err,
                    "curl: (22) The requested URL returned error: {code}"
                );
            }
            22
        }
        Some(_) => 0,
    }
}

/// busybox `date` (`Mon Nov 30 02:20:30 UTC 2026`) or `date +FORMAT`.
fn date(now: crate::clock::SimTime, format: Option<&str>) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let c = now.civil();
    let (secs, _) = now.unix();
    let weekday = DAYS[usize::try_from((secs.div_euclid(86_400) + 4).rem_euclid(7)).unwrap_or(0)];
    let month = MONTHS[usize::try_from(c.month.saturating_sub(1))
        .unwrap_or(0)
        .min(11)];
    let Some(format) = format.and_then(|f| f.strip_prefix('+')) else {
        return format!(
            "{weekday} {month} {:2} {:02}:{:02}:{:02} UTC {}",
            c.day, c.hour, c.minute, c.second, c.year
        );
    };
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        match chars.next() {
            Some('Y') => out.push_str(&c.year.to_string()),
            Some('m') => {
                let _ = write!(out, "{:02}", c.month);
            }
            Some('d') => {
                let _ = write!(out, "{:02}", c.day);
            }
            Some('H') => {
                let _ = write!(out, "{:02}", c.hour);
            }
            Some('M') => {
                let _ = write!(out, "{:02}", c.minute);
            }
            Some('S') => {
                let _ = write!(out, "{:02}", c.second);
            }
            Some('s') => out.push_str(&secs.to_string()),
            Some('T') => {
                let _ = write!(out, "{:02}:{:02}:{:02}", c.hour, c.minute, c.second);
            }
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}
