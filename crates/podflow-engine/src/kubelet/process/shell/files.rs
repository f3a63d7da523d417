//! The file and text applets: `touch`, `rm`, `cat`, `mkdir`, `ls`, `grep`,
//! `wc`, `seq`, `head` and `tail`, with busybox's messages.

use std::fmt::Write as _;

use super::{Io, Shell, Sys};
use crate::kubelet::process::fs::FsError;

/// `touch`, `rm [-f] [-r]`, `cat`, `mkdir [-p]`, `ls`.
pub fn files(sh: &Shell, sys: &mut Sys, name: &str, args: &[String], io: &mut Io) -> i32 {
    let flags: String = args
        .iter()
        .filter(|a| a.starts_with('-') && a.len() > 1)
        .flat_map(|a| a.chars().skip(1))
        .collect();
    let operands: Vec<&String> = args
        .iter()
        .filter(|a| !a.starts_with('-') || a.len() == 1)
        .collect();
    if name == "cat" && operands.is_empty() {
        io.out.push_str(&io.stdin.clone());
        return 0;
    }
    if name == "ls" && operands.is_empty() {
        let names = sys.fs.list(&sh.cwd);
        io.out
            .push_str(&names.iter().fold(String::new(), |acc, n| acc + n + "\n"));
        return 0;
    }
    let mut status = 0;
    for operand in operands {
        let path = sh.path(operand);
        let result = match name {
            "touch" if sys.fs.exists(&path) => Ok(()),
            "touch" => sys
                .fs
                .write(&path, "", true)
                .map_err(|e| format!("touch: {operand}: {}", e.text())),
            "rm" if sys.fs.is_dir(&path) && !flags.contains('r') && !flags.contains('R') => {
                Err(format!("rm: '{operand}' is a directory"))
            }
            "rm" => match sys.fs.remove_tree(&path) {
                Err(_) if flags.contains('f') => Ok(()),
                other => other.map_err(|e| format!("rm: can't remove '{operand}': {}", e.text())),
            },
            "cat" => match sys.fs.read(&path) {
                Ok(text) => {
                    io.out.push_str(text);
                    Ok(())
                }
                Err(FsError::IsDir) => Err(format!("cat: read error: {}", FsError::IsDir.text())),
                Err(e) => Err(format!("cat: can't open '{operand}': {}", e.text())),
            },
            "mkdir" => sys
                .fs
                .mkdir(&path, flags.contains('p'))
                .map_err(|e| format!("mkdir: can't create directory '{operand}': {}", e.text())),
            _ if sys.fs.is_dir(&path) => {
                io.out.push_str(
                    &sys.fs
                        .list(&path)
                        .iter()
                        .fold(String::new(), |acc, n| acc + n + "\n"),
                );
                Ok(())
            }
            _ if sys.fs.exists(&path) => {
                let _ = writeln!(io.out, "{operand}");
                Ok(())
            }
            _ => Err(format!("ls: {operand}: No such file or directory")),
        };
        if let Err(message) = result {
            let _ = writeln!(io.err, "{message}");
            status = 1;
        }
    }
    status
}

/// `grep [-q] [-v] PATTERN [FILE]` (a fixed string), `wc -l`, `seq`, `head`/`tail [-n N]`, `tail -f`.
pub fn text_tool(sh: &Shell, sys: &mut Sys, name: &str, args: &[String], io: &mut Io) -> i32 {
    let mut count: usize = 10;
    let mut flags = String::new();
    let mut operands = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "-n" {
            count = iter.next().and_then(|n| n.parse().ok()).unwrap_or(10);
        } else if arg.starts_with('-') && arg.len() > 1 && name != "seq" {
            flags.push_str(&arg[1..]);
        } else {
            operands.push(arg.clone());
        }
    }
    if name == "seq" {
        let numbers: Vec<i64> = operands.iter().filter_map(|o| o.parse().ok()).collect();
        let (first, last) = match numbers.as_slice() {
            [last] => (1, *last),
            [first, last, ..] => (*first, *last),
            [] => return 1,
        };
        for n in first..=last.min(first.saturating_add(100_000)) {
            let _ = writeln!(io.out, "{n}");
        }
        return 0;
    }
    let file_arg = if name == "grep" {
        operands.get(1)
    } else {
        operands.first()
    };
    let input = match file_arg {
        Some(file) => match sys.fs.read(&sh.path(file)) {
            Ok(text) => text.to_string(),
            Err(e) => {
                let _ = writeln!(io.err, "{name}: {file}: {}", e.text());
                return if name == "grep" { 2 } else { 1 };
            }
        },
        None => io.stdin.clone(),
    };
    let lines: Vec<&str> = input.lines().collect();
    match name {
        "grep" => {
            let pattern = operands.first().cloned().unwrap_or_default();
            let matching: Vec<&&str> = lines
                .iter()
                .filter(|l| l.contains(pattern.as_str()) != flags.contains('v'))
                .collect();
            if !flags.contains('q') {
                io.out
                    .push_str(&matching.iter().fold(String::new(), |acc, l| acc + l + "\n"));
            }
            i32::from(matching.is_empty())
        }
        "wc" => {
            let _ = writeln!(io.out, "{}", lines.len());
            0
        }
        _ => {
            let chosen = if name == "head" {
                &lines[..count.min(lines.len())]
            } else {
                &lines[lines.len().saturating_sub(count)..]
            };
            io.out
                .push_str(&chosen.iter().fold(String::new(), |acc, l| acc + l + "\n"));
            0
        }
    }
}
