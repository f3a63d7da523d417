//! The kubeconfig `podflow serve` writes for its clients: the cluster
//! `podflow` with the CA's certificate, the admin's context `podflow` (a
//! client certificate for `kubernetes-admin` in `kubeadm:cluster-admins`, as
//! `kubeadm init` writes `admin.conf`), and a context `USER@podflow` for each
//! token user of the cluster file's `Simulation`.

use std::fmt::Write as _;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::pki::Pem;

/// A token user of the cluster.
#[derive(Debug, Clone)]
pub struct TokenUser {
    pub name: String,
    pub token: String,
}

/// The kubeconfig's YAML for a server at `server` (`https://127.0.0.1:6443`).
pub fn render(server: &str, ca_pem: &str, admin: &Pem, users: &[TokenUser]) -> String {
    let mut out = String::new();
    let b64 = |text: &str| STANDARD.encode(text.as_bytes());
    let _ = writeln!(out, "apiVersion: v1\nkind: Config\nclusters:");
    let _ = writeln!(
        out,
        "- name: podflow\n  cluster:\n    server: {server}\n    certificate-authority-data: {}",
        b64(ca_pem)
    );
    let _ = writeln!(out, "users:");
    let _ = writeln!(
        out,
        "- name: kubernetes-admin\n  user:\n    client-certificate-data: {}\n    client-key-data: {}",
        b64(&admin.certificate),
        b64(&admin.key)
    );
    for user in users {
        let _ = writeln!(
            out,
            "- name: {}\n  user:\n    token: {}",
            quoted(&user.name),
            quoted(&user.token)
        );
    }
    let _ = writeln!(out, "contexts:");
    let _ = writeln!(
        out,
        "- name: podflow\n  context:\n    cluster: podflow\n    user: kubernetes-admin"
    );
    for user in users {
        let _ = writeln!(
            out,
            "- name: {}\n  context:\n    cluster: podflow\n    user: {}",
            quoted(&format!("{}@podflow", user.name)),
            quoted(&user.name)
        );
    }
    let _ = writeln!(out, "current-context: podflow\npreferences: {{}}");
    out
}

/// A YAML double-quoted scalar (JSON's string syntax is valid YAML).
fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_user_gets_a_context_and_the_admin_is_current() {
        let admin = Pem {
            certificate: "CERT".into(),
            key: "KEY".into(),
        };
        let users = [TokenUser {
            name: "jane".into(),
            token: "jane-token".into(),
        }];
        let text = render("https://127.0.0.1:6443", "CA", &admin, &users);
        assert!(text.contains("server: https://127.0.0.1:6443"));
        assert!(text.contains("certificate-authority-data: Q0E="));
        assert!(text.contains(
            "- name: \"jane@podflow\"\n  context:\n    cluster: podflow\n    user: \"jane\""
        ));
        assert!(text.contains("token: \"jane-token\""));
        assert!(text.contains("current-context: podflow\n"));
    }
}
