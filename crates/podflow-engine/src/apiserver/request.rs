//! What a client sends the API server, and who it is: requests are values
//! (docs/architecture.md, rule 10), whoever made them.

use std::fmt;

use crate::store::selector::Selector;
use crate::trace::Actor;
use podflow_model::{Kind, Object};

/// A request verb, as RBAC and audit logs name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verb {
    Create,
    Update,
    Patch,
    Get,
    List,
    Watch,
    Delete,
}

impl Verb {
    /// `create`, `update`, ... as RBAC rules spell verbs.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Delete => "delete",
        }
    }

    /// The HTTP method a client uses for this verb.
    pub fn http_method(self) -> &'static str {
        match self {
            Verb::Create => "POST",
            Verb::Update => "PUT",
            Verb::Patch => "PATCH",
            Verb::Get | Verb::List | Verb::Watch => "GET",
            Verb::Delete => "DELETE",
        }
    }
}

impl fmt::Display for Verb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An authenticated identity, as `user.Info` has it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserInfo {
    /// `kubernetes-admin`, `jane`, `system:kube-scheduler`, `system:node:node-1`.
    pub name: String,
    /// Groups, including `system:authenticated` once authenticated.
    pub groups: Vec<String>,
}

impl UserInfo {
    /// The node a kubelet's user is (`system:node:NAME` in `system:nodes`), as
    /// the Node authorizer and `NodeRestriction` read it (`pkg/auth/nodeidentifier`).
    pub fn node_name(&self) -> Option<&str> {
        let name = self.name.strip_prefix("system:node:")?;
        self.groups
            .iter()
            .any(|g| g == "system:nodes")
            .then_some(name)
    }

    /// A user with these groups.
    pub fn new(name: impl Into<String>, groups: &[&str]) -> UserInfo {
        UserInfo {
            name: name.into(),
            groups: groups.iter().map(|g| (*g).to_owned()).collect(),
        }
    }
}

/// How a request proves who sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    /// A client certificate (the kubeconfig kubeadm writes, and the control-plane
    /// components' own): the subject's CN is the user, its O the groups.
    Certificate(UserInfo),
    /// A bearer token, checked against the token authenticator's users.
    BearerToken(String),
    /// `kubectl --as`: `by` authenticates (with its certificate or token)
    /// and asks to act as `user` (`Impersonate-User`, `Impersonate-Group`).
    Impersonated {
        by: Box<Credentials>,
        user: UserInfo,
    },
}

/// The admission operation a verb maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Create,
    Update,
    Delete,
}

impl Operation {
    /// `CREATE`, `UPDATE`, `DELETE`, as admission names them.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
        }
    }
}

/// A request to the API server.
#[derive(Debug, Clone)]
pub struct Request {
    /// The component that sends it: `kubectl`, `kube-scheduler`, `kubelet/node-1`.
    pub client: Actor,
    /// Who it claims to be.
    pub credentials: Credentials,
    /// The verb.
    pub verb: Verb,
    /// The resource kind addressed.
    pub kind: &'static Kind,
    /// The namespace, for namespaced kinds.
    pub namespace: Option<String>,
    /// The object's name; empty for a create (taken from the body) or a list.
    pub name: String,
    /// `status` or `binding`, when the request addresses a subresource.
    pub subresource: Option<String>,
    /// The object sent (create, update, patch) or the binding target.
    pub body: Option<Body>,
    /// Field paths the body held that its kind does not have (strict field validation).
    pub unknown_fields: Vec<String>,
    /// A value in the body of the wrong JSON type for its field, which the
    /// decoder refuses with `400 BadRequest`.
    pub type_error: Option<podflow_scenario::TypeMismatch>,
    /// For a watch: the resourceVersion to start after.
    pub resource_version: Option<u64>,
    /// For a delete: `DeleteOptions.propagationPolicy`.
    pub propagation_policy: Option<Propagation>,
    /// For a list or watch: the label and field selectors.
    pub selector: Selector,
}

/// `DeleteOptions.propagationPolicy`: what happens to an object's dependents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    /// Deleted by the garbage collector after the owner is gone.
    Background,
    /// Deleted before the owner (the `foregroundDeletion` finalizer).
    Foreground,
    /// Left, their owner references removed (the `orphan` finalizer).
    Orphan,
}

impl Propagation {
    /// `Background`, `Foreground`, `Orphan`, as `DeletionPropagation` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Propagation::Background => "Background",
            Propagation::Foreground => "Foreground",
            Propagation::Orphan => "Orphan",
        }
    }
}

/// A request's payload.
#[derive(Debug, Clone)]
pub enum Body {
    /// A whole object (create, update, status update).
    Object(Box<Object>),
    /// A strategic merge patch to the stored object (`application/strategic-merge-patch+json`).
    Patch(serde_json::Value),
    /// The target of a `pods/binding` request: the node's name.
    Binding { node: String },
    /// A delete's options.
    Delete { grace_period_seconds: Option<i64> },
    /// A `pods/log` request's options (`PodLogOptions`): which container,
    /// and whether its previous instance (`previous`).
    LogOptions {
        container: Option<String>,
        previous: bool,
    },
    /// A `pods/exec` request's options (`PodExecOptions`): the container
    /// and the command, its argv.
    Exec {
        container: Option<String>,
        command: Vec<String>,
    },
    /// A JSON merge patch (`application/merge-patch+json`, RFC 7386).
    MergePatch(serde_json::Value),
    /// A JSON patch (`application/json-patch+json`, RFC 6902).
    JsonPatch(serde_json::Value),
}

impl Request {
    /// A request from `client`, as `credentials`, to `verb` the object `name`
    /// of `kind` (in `namespace`, for namespaced kinds).
    pub fn new(
        client: Actor,
        credentials: Credentials,
        verb: Verb,
        kind: &'static Kind,
        namespace: Option<String>,
        name: impl Into<String>,
    ) -> Request {
        Request {
            client,
            credentials,
            verb,
            kind,
            namespace: namespace.filter(|_| kind.namespaced),
            name: name.into(),
            subresource: None,
            body: None,
            unknown_fields: Vec::new(),
            type_error: None,
            resource_version: None,
            propagation_policy: None,
            selector: Selector::default(),
        }
    }

    /// Addressed to a subresource (`status`, `binding`).
    #[must_use]
    pub fn subresource(mut self, subresource: &str) -> Request {
        self.subresource = Some(subresource.to_owned());
        self
    }

    /// With `DeleteOptions.propagationPolicy`.
    #[must_use]
    pub fn propagation(mut self, policy: Propagation) -> Request {
        self.propagation_policy = Some(policy);
        self
    }

    /// With a body.
    #[must_use]
    pub fn body(mut self, body: Body) -> Request {
        self.body = Some(body);
        self
    }

    /// The URL the request goes to: `/api/v1/namespaces/default/pods/nginx/status`.
    pub fn path(&self) -> String {
        let mut path = self.kind.collection_path(self.namespace.as_deref());
        if !self.name.is_empty() {
            path.push('/');
            path.push_str(&self.name);
        }
        if let Some(sub) = &self.subresource {
            path.push('/');
            path.push_str(sub);
        }
        path
    }

    /// `POST /api/v1/namespaces/default/pods`, the sequence diagram's label.
    pub fn label(&self) -> String {
        let query = match &self.body {
            _ if self.verb == Verb::Watch => "?watch=true".to_owned(),
            Some(Body::LogOptions { previous: true, .. }) => "?previous=true".to_owned(),
            Some(Body::Exec { container, command }) => {
                let mut query = format!("?{}", crate::engine::command_query(command));
                if let Some(container) = container {
                    query.push_str("&container=");
                    query.push_str(container);
                }
                query.push_str("&stderr=true&stdout=true");
                query
            }
            _ => String::new(),
        };
        format!("{} {}{query}", self.verb.http_method(), self.path())
    }

    /// What a list or watch of this request selects.
    pub fn watch_filter(&self) -> crate::store::WatchFilter {
        self.selector.filter(self.kind, self.namespace.as_deref())
    }

    /// The admission operation of this request, if it is one admission sees.
    pub fn operation(&self) -> Option<Operation> {
        match self.verb {
            Verb::Create => Some(Operation::Create),
            Verb::Update | Verb::Patch => Some(Operation::Update),
            Verb::Delete => Some(Operation::Delete),
            Verb::Get | Verb::List | Verb::Watch => None,
        }
    }
}
