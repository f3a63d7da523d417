//! `kubectl get` rows for bindings (`printRoleBinding`,
//! `printClusterRoleBinding` in `pkg/printers/internalversion/printers.go`):
//! the role a binding grants, as `Kind/name`. Roles and cluster roles have no
//! printer of their own: the API server's default table (NAME, CREATED AT).

use podflow_model::Object;

/// The header of each kind's table, if this module prints it.
pub fn header(kind: &str) -> Option<&'static [&'static str]> {
    match kind {
        "RoleBinding" | "ClusterRoleBinding" => Some(&["NAME", "ROLE", "AGE"]),
        _ => None,
    }
}

/// An object's cells but AGE.
pub fn cells(o: &Object) -> Vec<String> {
    let role = match o {
        Object::RoleBinding(b) => Some(&b.role_ref),
        Object::ClusterRoleBinding(b) => Some(&b.role_ref),
        _ => None,
    };
    let mut row = vec![o.name().to_owned()];
    if let Some(role) = role {
        row.push(format!("{}/{}", role.kind, role.name));
    }
    row
}
