//! OpenAPI documents (to be written).
