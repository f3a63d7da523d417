//! Authorization: the Node authorizer and RBAC, as kube-apiserver runs them
//! with `--authorization-mode=Node,RBAC`.
