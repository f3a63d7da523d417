//! Object validation with Kubernetes' field errors and wording
//! (`pkg/apis/core/validation/validation.go`).

// TEMPORARY (replaced by the validation branch before this lands).
use crate::model::Object;
use crate::model::status::FieldError;
pub fn validate_create(_o: &Object) -> Vec<FieldError> {
    Vec::new()
}
pub fn validate_update(_o: &Object, _old: &Object) -> Vec<FieldError> {
    Vec::new()
}
pub fn decode_error(_o: &Object) -> Option<String> {
    None
}
