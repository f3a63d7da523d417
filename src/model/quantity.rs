//! Resource quantities (`500m`, `128Mi`, `1.5`), parsed as
//! `k8s.io/apimachinery/pkg/api/resource` parses them.
