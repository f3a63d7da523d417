//! What a container runs: the image's `ENTRYPOINT` and `CMD` combined with the
//! container's `command` and `args` as the docs page "Define a Command and
//! Arguments for a Container" tabulates it, after the kubelet expands `$(VAR)`
//! references from the container's environment
//! (`pkg/kubelet/container/helpers.go` `ExpandContainerCommandAndArgs`,
//! `third_party/forked/golang/expansion/expand.go`).

use podflow_scenario::ImageInfo;

/// Expands `$(VAR)` in `input` from `env` (the last definition wins, as the
/// kubelet's map of the list keeps it): `$$` is a literal `$`, an unknown or
/// unterminated reference stays as written, any other `$x` is kept.
pub fn expand(input: &str, env: &[(String, String)]) -> String {
    let mut out = String::with_capacity(input.len());
    let mut rest = input;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        match after.chars().next() {
            None => {
                out.push('$');
                rest = after;
            }
            Some('$') => {
                out.push('$');
                rest = &after[1..];
            }
            Some('(') => {
                if let Some(close) = after.find(')') {
                    let name = &after[1..close];
                    if let Some((_, value)) = env.iter().rev().find(|(k, _)| k == name) {
                        out.push_str(value);
                    } else {
                        out.push_str("$(");
                        out.push_str(name);
                        out.push(')');
                    }
                    rest = &after[close + 1..];
                } else {
                    out.push_str("$(");
                    rest = &after[1..];
                }
            }
            Some(c) => {
                out.push('$');
                out.push(c);
                rest = &after[c.len_utf8()..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The argv a container starts with: `command` replaces the image's
/// `ENTRYPOINT` and drops its `CMD`; `args` replace the `CMD`.
pub fn argv(
    image: Option<&ImageInfo>,
    command: &[String],
    args: &[String],
    env: &[(String, String)],
) -> Vec<String> {
    let command: Vec<String> = command.iter().map(|c| expand(c, env)).collect();
    let args: Vec<String> = args.iter().map(|a| expand(a, env)).collect();
    let (entrypoint, cmd) = image.map_or((&[][..], &[][..]), |i| {
        (i.entrypoint.as_slice(), i.command.as_slice())
    });
    let replaced = !command.is_empty();
    let mut words = if replaced {
        command
    } else {
        entrypoint.to_vec()
    };
    if !args.is_empty() {
        words.extend(args);
    } else if !replaced {
        words.extend_from_slice(cmd);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_scenario::image_catalog;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(ToString::to_string).collect()
    }

    /// Mirrors the table of `third_party/forked/golang/expansion/expand_test.go` (`TestMapReference`, `TestMapping`).
    #[test]
    fn expands_as_the_kubelet_does() {
        let env = vec![
            ("VAR_A".to_string(), "A".to_string()),
            ("VAR_B".to_string(), "B".to_string()),
            ("VAR_EMPTY".to_string(), String::new()),
            ("VAR_A".to_string(), "A2".to_string()),
        ];
        for (input, expected) in [
            ("$(VAR_A)", "A2"),
            ("___$(VAR_B)___", "___B___"),
            ("$(VAR_A)-$(VAR_B)", "A2-B"),
            ("$(VAR_EMPTY)", ""),
            ("$(VAR_DNE)", "$(VAR_DNE)"),
            ("$$(VAR_A)", "$(VAR_A)"),
            ("$$$(VAR_A)", "$A2"),
            ("$$$$(VAR_A)", "$$(VAR_A)"),
            ("f000-$$VAR_A", "f000-$VAR_A"),
            ("$(VAR_A", "$(VAR_A"),
            ("$VAR_A", "$VAR_A"),
            ("${VAR_A}", "${VAR_A}"),
            ("$", "$"),
            ("$()", "$()"),
            (
                "until nslookup myservice.$(cat /f).svc; do",
                "until nslookup myservice.$(cat /f).svc; do",
            ),
        ] {
            assert_eq!(expand(input, &env), expected, "{input}");
        }
    }

    /// The table of "Define a Command and Arguments for a Container" (Notes).
    #[test]
    fn command_and_args_combine_with_the_image() {
        let catalog = image_catalog();
        let nginx = catalog.lookup("nginx:1.27");
        for (command, args, expected) in [
            (
                vec![],
                vec![],
                vec!["/docker-entrypoint.sh", "nginx", "-g", "daemon off;"],
            ),
            (vec!["/bin/sh"], vec![], vec!["/bin/sh"]),
            (
                vec![],
                vec!["nginx-debug"],
                vec!["/docker-entrypoint.sh", "nginx-debug"],
            ),
            (vec!["sleep"], vec!["10"], vec!["sleep", "10"]),
        ] {
            assert_eq!(
                argv(nginx, &strings(&command), &strings(&args), &[]),
                strings(&expected)
            );
        }
        let env = vec![("MESSAGE".to_string(), "hello world".to_string())];
        assert_eq!(
            argv(
                None,
                &strings(&["/bin/echo"]),
                &strings(&["$(MESSAGE)"]),
                &env
            ),
            strings(&["/bin/echo", "hello world"])
        );
    }
}
