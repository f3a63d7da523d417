//! Object metadata validation, after `k8s.io/apimachinery/pkg/api/validation/objectmeta.go`
//! (`ValidateObjectMetaAccessor`, `ValidateObjectMetaAccessorUpdate`) and the
//! finalizer check of `pkg/apis/core/validation` (`validateKubeFinalizerName`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::field::{invalid, invalid_raw, nonnegative, required};
use super::names::{name_is_dns_label, qualified_name, validate_labels};
use podflow_model::status::FieldError;

/// A `ValidateNameFunc`: the messages for a name, or a `generateName` prefix.
pub type NameFn = fn(&str, bool) -> Vec<String>;

/// `TotalAnnotationSizeLimitB`.
const ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// `ValidateObjectMeta(meta, requiresNamespace, nameFn, "metadata")`.
pub fn validate_object_meta(
    meta: &ObjectMeta,
    namespaced: bool,
    name_fn: NameFn,
    errs: &mut Vec<FieldError>,
) {
    if let Some(generate) = meta.generate_name.as_deref().filter(|g| !g.is_empty()) {
        errs.extend(
            name_fn(generate, true)
                .iter()
                .map(|m| invalid("metadata.generateName", generate, m)),
        );
    }
    match meta.name.as_deref().filter(|n| !n.is_empty()) {
        None => errs.push(required(
            "metadata.name",
            "name or generateName is required",
        )),
        Some(name) => errs.extend(
            name_fn(name, false)
                .iter()
                .map(|m| invalid("metadata.name", name, m)),
        ),
    }
    let namespace = meta.namespace.as_deref().unwrap_or_default();
    if namespaced {
        if namespace.is_empty() {
            errs.push(required("metadata.namespace", ""));
        } else {
            errs.extend(
                name_is_dns_label(namespace, false)
                    .iter()
                    .map(|m| invalid("metadata.namespace", namespace, m)),
            );
        }
    } else if !namespace.is_empty() {
        errs.push(super::field::forbidden(
            "metadata.namespace",
            "not allowed on this type",
        ));
    }
    common(meta, errs);
    for (i, f) in meta.finalizers.iter().flatten().enumerate() {
        kube_finalizer(f, &format!("metadata.finalizers[{i}]"), errs);
    }
}

/// The checks shared by create and update: generation, labels, annotations, finalizers.
fn common(meta: &ObjectMeta, errs: &mut Vec<FieldError>) {
    errs.extend(nonnegative(
        "metadata.generation",
        meta.generation.unwrap_or_default(),
    ));
    if let Some(labels) = &meta.labels {
        validate_labels(labels, "metadata.labels", errs);
    }
    if let Some(annotations) = &meta.annotations {
        for k in annotations.keys() {
            errs.extend(
                qualified_name(&k.to_lowercase())
                    .iter()
                    .map(|m| invalid("metadata.annotations", k, m)),
            );
        }
        let size: usize = annotations.iter().map(|(k, v)| k.len() + v.len()).sum();
        if size > ANNOTATION_SIZE_LIMIT {
            errs.push(FieldError {
                field: "metadata.annotations".into(),
                cause: "FieldValueTooLong",
                body: format!("Too long: must have at most {ANNOTATION_SIZE_LIMIT} bytes"),
            });
        }
    }
    for f in meta.finalizers.iter().flatten() {
        errs.extend(
            qualified_name(f)
                .iter()
                .map(|m| invalid("metadata.finalizers", f, m)),
        );
    }
}

/// `validateKubeFinalizerName`: an unqualified finalizer must be a standard one.
fn kube_finalizer(name: &str, path: &str, errs: &mut Vec<FieldError>) {
    if !name.contains('/') && name != "kubernetes" {
        errs.push(invalid(
            path,
            name,
            "name is neither a standard finalizer name nor is it fully qualified",
        ));
    }
}

/// `ValidateObjectMetaUpdate(new, old, "metadata")`.
pub fn validate_object_meta_update(new: &ObjectMeta, old: &ObjectMeta, errs: &mut Vec<FieldError>) {
    let rv = new.resource_version.as_deref().unwrap_or_default();
    if rv.is_empty() {
        errs.push(invalid(
            "metadata.resourceVersion",
            rv,
            "must be specified for an update",
        ));
    }
    let (new_gen, old_gen) = (
        new.generation.unwrap_or_default(),
        old.generation.unwrap_or_default(),
    );
    if new_gen < old_gen {
        errs.push(invalid_raw(
            "metadata.generation",
            &new_gen.to_string(),
            "must not be decremented",
        ));
    }
    for (field, n, o) in [
        ("name", &new.name, &old.name),
        ("namespace", &new.namespace, &old.namespace),
        ("uid", &new.uid, &old.uid),
    ] {
        let (n, o) = (
            n.as_deref().unwrap_or_default(),
            o.as_deref().unwrap_or_default(),
        );
        if n != o {
            errs.push(invalid(
                &format!("metadata.{field}"),
                n,
                "field is immutable",
            ));
        }
    }
    common(new, errs);
    for (i, f) in new.finalizers.iter().flatten().enumerate() {
        kube_finalizer(f, &format!("metadata.finalizers[{i}]"), errs);
    }
}
