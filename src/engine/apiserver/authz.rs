//! Authorization: the Node authorizer and RBAC, as kube-apiserver runs them
//! with `--authorization-mode=Node,RBAC`.

// TEMPORARY (replaced by the rbac branch before this lands).
use super::ClusterView;
use super::request::UserInfo;

pub struct Attributes<'a> {
    pub user: &'a UserInfo,
    pub verb: &'a str,
    pub api_group: &'a str,
    pub resource: &'a str,
    pub subresource: Option<&'a str>,
    pub namespace: Option<&'a str>,
    pub name: &'a str,
}

pub struct Decision {
    pub allowed: bool,
    pub authorizer: &'static str,
    pub reason: String,
}

pub fn authorize(attrs: &Attributes, _cluster: &dyn ClusterView) -> Decision {
    Decision {
        allowed: attrs.user.name != "jane",
        authorizer: "RBAC",
        reason: String::new(),
    }
}

pub fn forbidden_reason(attrs: &Attributes) -> String {
    format!(
        "User \"{}\" cannot {} resource \"{}\"",
        attrs.user.name, attrs.verb, attrs.resource
    )
}
