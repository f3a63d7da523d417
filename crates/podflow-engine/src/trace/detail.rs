//! A stage's detail: free text for most stages, typed fields where a view
//! needs the data itself (who a request authenticated as, the Pod's address
//! and the node's Pod CIDR, the sandbox, a volume and its plugin). Written as
//! the same text either way.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_details_read_as_the_trace_has_always_written_them() {
        let cases: [(Detail, &str); 6] = [
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
