//! A stage's detail: free text for most stages, typed fields where a view
//! needs the data itself (who a request authenticated as, the Pod's address
//! and the node's Pod CIDR, the sandbox, a volume and its plugin, a container's
//! exit and back-off, a failed probe's run, what a node lacks for a Pod).
//! Written as the same text either way: the extra fields are for the views.

use std::borrow::Cow;
use std::fmt;

use serde::{Serialize, Serializer};

/// What a stage says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Detail {
    Text(String),
    /// The API server's `authentication` that let a request in:
    /// `user "NAME" groups [G1, G2] (METHOD)`.
    Authentication(Box<AuthenticationDetail>),
    /// CNI's `network`: `eth0 IP from CIDR`.
    Network(Box<NetworkDetail>),
    /// The kubelet's `sandbox`: `pause container ID with IP IP`.
    Sandbox(Box<SandboxDetail>),
    /// The kubelet's `volume`: `NAME (PLUGIN)`, and `: ERROR` when it failed.
    Volume(Box<VolumeDetail>),
    /// The kubelet's `container` exit: `NAME exited with code N (REASON)`.
    Exit(Box<ExitDetail>),
    /// The kubelet's crash-loop back-off: `NAME CrashLoopBackOff: restart in 20s`.
    CrashBackoff(Box<CrashBackoffDetail>),
    /// A failed probe: `NAME: Liveness probe failed: …` (the `Unhealthy` event's words).
    Probe(Box<ProbeDetail>),
    /// `NodeResourcesFit` ruling a node out: `Insufficient cpu, Insufficient memory`.
    Fit(Box<FitDetail>),
}

/// A container's exit, with the last lines it wrote and, for an OOM kill,
/// the memory it had when the limit was crossed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ExitDetail {
    pub container: String,
    pub code: i32,
    /// `Completed`, `Error`, `OOMKilled`, `StartError`.
    pub reason: String,
    /// The last lines of its output (at most [`ExitDetail::TAIL`]), oldest first.
    pub tail: Vec<String>,
    /// For `OOMKilled`: the bytes in use that crossed the limit.
    pub memory_bytes: Option<u64>,
    /// For `OOMKilled`: the cgroup's limit, in bytes.
    pub limit_bytes: Option<u64>,
}

impl ExitDetail {
    /// Output lines kept.
    pub const TAIL: usize = 5;
}

/// A container's restart held back after a crash (`doBackOff`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CrashBackoffDetail {
    pub container: String,
    /// The delay as the kubelet words it (`20s`, `2m40s`).
    pub delay: String,
    pub delay_ms: u64,
    /// When the restart is allowed, in simulated milliseconds since the start.
    pub restart_at_ms: u64,
}

/// One failed probe run, with the run of failures it makes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProbeDetail {
    pub container: String,
    /// The `Unhealthy` event's message.
    pub message: String,
    /// Failures in a row, this one included (0: the probe could not run, and is not counted).
    pub failures: i32,
    pub failure_threshold: i32,
}

/// What a node lacks for a Pod, each resource with the numbers that decided.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FitDetail {
    /// The reasons, as the filter wrote them.
    pub reasons: Vec<String>,
    pub shortfalls: Vec<Shortfall>,
}

/// One resource a node lacks: `cpu` in millicores, `memory` and
/// `ephemeral-storage` in bytes, `pods` and scalar resources as counted.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Shortfall {
    pub resource: String,
    /// The Pod's request.
    pub requested: i64,
    /// What the node's Pods already request.
    pub used: i64,
    /// The node's allocatable.
    pub allocatable: i64,
}

/// Who a request authenticated as, and how (`x509 client certificate`,
/// `bearer token`, `impersonated by "USER"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AuthenticationDetail {
    pub user: String,
    pub groups: Vec<String>,
    pub method: String,
}

/// The address the CNI plugin gave a Pod, from its node's Pod CIDR.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NetworkDetail {
    pub ip: String,
    pub cidr: String,
}

/// A Pod's sandbox: the pause container (its ID's first 13 characters) and
/// the Pod's IP.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SandboxDetail {
    pub id: String,
    pub ip: String,
}

/// A Pod's volume, the plugin that set it up, and why it failed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VolumeDetail {
    pub name: String,
    pub plugin: String,
    pub error: Option<String>,
}

impl Detail {
    /// The detail as the trace writes it.
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Detail::Text(text) => Cow::Borrowed(text),
            typed => Cow::Owned(typed.to_string()),
        }
    }

    /// Whether there is nothing to say.
    pub fn is_empty(&self) -> bool {
        matches!(self, Detail::Text(text) if text.is_empty())
    }
}

impl Default for Detail {
    fn default() -> Detail {
        Detail::Text(String::new())
    }
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Detail::Text(text) => f.write_str(text),
            Detail::Authentication(a) => write!(
                f,
                "user \"{}\" groups [{}] ({})",
                a.user,
                a.groups.join(", "),
                a.method
            ),
            Detail::Network(n) => write!(f, "eth0 {} from {}", n.ip, n.cidr),
            Detail::Sandbox(s) => write!(f, "pause container {} with IP {}", s.id, s.ip),
            Detail::Volume(v) => {
                write!(f, "{} ({})", v.name, v.plugin)?;
                match &v.error {
                    Some(error) => write!(f, ": {error}"),
                    None => Ok(()),
                }
            }
            Detail::Exit(e) => write!(
                f,
                "{} exited with code {} ({})",
                e.container, e.code, e.reason
            ),
            Detail::CrashBackoff(b) => {
                write!(
                    f,
                    "{} CrashLoopBackOff: restart in {}",
                    b.container, b.delay
                )
            }
            Detail::Probe(p) => write!(f, "{}: {}", p.container, p.message),
            Detail::Fit(fit) => f.write_str(&fit.reasons.join(", ")),
        }
    }
}

impl Serialize for Detail {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Detail::Text(text) => serializer.serialize_str(text),
            typed => serializer.collect_str(typed),
        }
    }
}

/// A detail equals the text the trace writes for it.
impl PartialEq<str> for Detail {
    fn eq(&self, text: &str) -> bool {
        self.text() == text
    }
}

impl PartialEq<&str> for Detail {
    fn eq(&self, text: &&str) -> bool {
        self.text() == *text
    }
}

impl From<String> for Detail {
    fn from(text: String) -> Detail {
        Detail::Text(text)
    }
}

impl From<&str> for Detail {
    fn from(text: &str) -> Detail {
        Detail::Text(text.to_owned())
    }
}

impl From<AuthenticationDetail> for Detail {
    fn from(detail: AuthenticationDetail) -> Detail {
        Detail::Authentication(Box::new(detail))
    }
}

impl From<NetworkDetail> for Detail {
    fn from(detail: NetworkDetail) -> Detail {
        Detail::Network(Box::new(detail))
    }
}

impl From<SandboxDetail> for Detail {
    fn from(detail: SandboxDetail) -> Detail {
        Detail::Sandbox(Box::new(detail))
    }
}

impl From<VolumeDetail> for Detail {
    fn from(detail: VolumeDetail) -> Detail {
        Detail::Volume(Box::new(detail))
    }
}

impl From<ExitDetail> for Detail {
    fn from(detail: ExitDetail) -> Detail {
        Detail::Exit(Box::new(detail))
    }
}

impl From<CrashBackoffDetail> for Detail {
    fn from(detail: CrashBackoffDetail) -> Detail {
        Detail::CrashBackoff(Box::new(detail))
    }
}

impl From<ProbeDetail> for Detail {
    fn from(detail: ProbeDetail) -> Detail {
        Detail::Probe(Box::new(detail))
    }
}

impl From<FitDetail> for Detail {
    fn from(detail: FitDetail) -> Detail {
        Detail::Fit(Box::new(detail))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_details_read_as_the_trace_has_always_written_them() {
        let cases: [(Detail, &str); 10] = [
            ("phase Running".into(), "phase Running"),
            (
                AuthenticationDetail {
                    user: "jane".into(),
                    groups: vec!["developers".into(), "system:authenticated".into()],
                    method: "bearer token".into(),
                }
                .into(),
                r#"user "jane" groups [developers, system:authenticated] (bearer token)"#,
            ),
            (
                NetworkDetail {
                    ip: "10.244.3.2".into(),
                    cidr: "10.244.3.0/24".into(),
                }
                .into(),
                "eth0 10.244.3.2 from 10.244.3.0/24",
            ),
            (
                SandboxDetail {
                    id: "68e74a3414a3d".into(),
                    ip: "10.244.3.2".into(),
                }
                .into(),
                "pause container 68e74a3414a3d with IP 10.244.3.2",
            ),
            (
                VolumeDetail {
                    name: "kube-api-access-x7k2p".into(),
                    plugin: "kubernetes.io/projected".into(),
                    error: None,
                }
                .into(),
                "kube-api-access-x7k2p (kubernetes.io/projected)",
            ),
            (
                VolumeDetail {
                    name: "data".into(),
                    plugin: "kubernetes.io/csi".into(),
                    error: Some("not attached".into()),
                }
                .into(),
                "data (kubernetes.io/csi): not attached",
            ),
            (
                ExitDetail {
                    container: "app".into(),
                    code: 137,
                    reason: "OOMKilled".into(),
                    tail: vec!["stress: info: [1] dispatching hogs".into()],
                    memory_bytes: Some(263_192_576),
                    limit_bytes: Some(104_857_600),
                }
                .into(),
                "app exited with code 137 (OOMKilled)",
            ),
            (
                CrashBackoffDetail {
                    container: "app".into(),
                    delay: "20s".into(),
                    delay_ms: 20_000,
                    restart_at_ms: 31_000,
                }
                .into(),
                "app CrashLoopBackOff: restart in 20s",
            ),
            (
                ProbeDetail {
                    container: "web".into(),
                    message: "Readiness probe failed: HTTP probe failed with statuscode: 500"
                        .into(),
                    failures: 2,
                    failure_threshold: 3,
                }
                .into(),
                "web: Readiness probe failed: HTTP probe failed with statuscode: 500",
            ),
            (
                FitDetail {
                    reasons: vec!["Insufficient cpu".into(), "Insufficient memory".into()],
                    shortfalls: Vec::new(),
                }
                .into(),
                "Insufficient cpu, Insufficient memory",
            ),
        ];
        for (detail, text) in cases {
            assert_eq!(detail.text(), text);
            assert_eq!(
                serde_json::to_string(&detail).unwrap(),
                serde_json::to_string(text).unwrap()
            );
        }
        assert!(Detail::default().is_empty());
    }
}
