//! Object validation with Kubernetes' field errors and wording
//! (`pkg/apis/core/validation/validation.go`).
