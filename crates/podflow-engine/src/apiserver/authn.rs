//! Authentication: client certificates (the kubeconfig kubeadm writes and the
//! control-plane components' own), impersonation (`kubectl --as`), and the
//! static token authenticator fed by the `Simulation` object's users
//! (`staging/src/k8s.io/apiserver/pkg/authentication/token/tokenfile`).

use std::collections::BTreeMap;

use super::request::{Credentials, UserInfo};

/// The group every authenticated user gets
/// (`staging/src/k8s.io/apiserver/pkg/authentication/user/user.go`, `AllAuthenticated`).
pub const ALL_AUTHENTICATED: &str = "system:authenticated";

/// The token authenticator's table: token → user.
#[derive(Debug, Clone, Default)]
pub struct TokenAuthenticator {
    tokens: BTreeMap<String, UserInfo>,
}

/// Who a request turned out to be, and how that was decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authenticated {
    pub user: UserInfo,
    /// `x509 client certificate`, `bearer token`, `impersonated by "kubernetes-admin"`.
    pub method: String,
}

impl TokenAuthenticator {
    /// Adds a user reached by `token`.
    pub fn add(&mut self, token: &str, user: UserInfo) {
        self.tokens.insert(token.to_owned(), user);
    }

    /// Authenticates `credentials`; `None` means `401 Unauthorized`.
    pub fn authenticate(&self, credentials: &Credentials) -> Option<Authenticated> {
        let (user, method) = match credentials {
            Credentials::Certificate(user) => (user.clone(), "x509 client certificate".to_owned()),
            Credentials::BearerToken(token) => {
                (self.tokens.get(token)?.clone(), "bearer token".to_owned())
            }
            Credentials::Impersonated { by, user } => {
                let requester = self.authenticate(by)?;
                (
                    user.clone(),
                    format!("impersonated by \"{}\"", requester.user.name),
                )
            }
        };
        Some(Authenticated {
            user: with_authenticated_group(user),
            method,
        })
    }
}

/// Adds `system:authenticated` unless the user already has it, as the
/// authenticator chain's `AuthenticatedGroupAdder` does.
pub fn with_authenticated_group(mut user: UserInfo) -> UserInfo {
    if !user.groups.iter().any(|g| g == ALL_AUTHENTICATED) {
        user.groups.push(ALL_AUTHENTICATED.to_owned());
    }
    user
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_certificates_and_impersonation() {
        let mut authn = TokenAuthenticator::default();
        authn.add("jane-token", UserInfo::new("jane", &["developers"]));
        let jane = authn
            .authenticate(&Credentials::BearerToken("jane-token".into()))
            .unwrap();
        assert_eq!(jane.user.groups, ["developers", "system:authenticated"]);
        assert!(
            authn
                .authenticate(&Credentials::BearerToken("nope".into()))
                .is_none()
        );
        let admin = UserInfo::new("kubernetes-admin", &["system:masters"]);
        let cert = authn
            .authenticate(&Credentials::Certificate(admin.clone()))
            .unwrap();
        assert_eq!(cert.method, "x509 client certificate");
        let imp = authn
            .authenticate(&Credentials::Impersonated {
                by: Box::new(Credentials::Certificate(admin)),
                user: UserInfo::new("jane", &[]),
            })
            .unwrap();
        assert_eq!(imp.user.name, "jane");
        assert_eq!(imp.method, r#"impersonated by "kubernetes-admin""#);
    }
}
