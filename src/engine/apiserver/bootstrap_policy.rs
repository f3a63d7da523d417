//! The `ClusterRoles` and `ClusterRoleBindings` a new cluster starts with
//! (`plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go`).
