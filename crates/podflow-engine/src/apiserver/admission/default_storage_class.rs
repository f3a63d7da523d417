//! `DefaultStorageClass` (`plugin/pkg/admission/storage/storageclass/setdefault/admission.go`):
//! gives a `PersistentVolumeClaim` without `storageClassName` (nil, not `""`,
//! and without the beta class annotation) the default `StorageClass`: the one
//! annotated `storageclass.kubernetes.io/is-default-class: "true"`, the newest
//! if several are (`volumeutil.GetDefaultClass`). Without a default class the
//! claim is left as it is.

use super::{AdmissionRequest, Plugin, Verdict, is_kind};
use crate::apiserver::request::Operation;
use crate::rng::Rng;
use podflow_model::kinds::kind_of;
use podflow_model::storage::is_default_class;
use podflow_model::{Kind, Object};

/// `volume.beta.kubernetes.io/storage-class`, the class before `storageClassName`.
const BETA_CLASS_ANNOTATION: &str = "volume.beta.kubernetes.io/storage-class";

/// The `DefaultStorageClass` admission plugin (mutating).
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultStorageClass;

impl Plugin for DefaultStorageClass {
    fn name(&self) -> &'static str {
        "DefaultStorageClass"
    }

    /// Handles `PersistentVolumeClaim` creates.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        operation == Operation::Create
            && subresource.is_none()
            && is_kind(kind, "", "PersistentVolumeClaim")
    }

    fn mutating(&self) -> bool {
        true
    }

    fn admit(&self, req: &AdmissionRequest<'_>, object: &mut Object, _rng: &mut Rng) -> Verdict {
        let Object::PersistentVolumeClaim(pvc) = object else {
            return Verdict::Allow;
        };
        let annotated = pvc
            .metadata
            .annotations
            .as_ref()
            .is_some_and(|a| a.contains_key(BETA_CLASS_ANNOTATION));
        let spec = pvc.spec.get_or_insert_with(Default::default);
        if spec.storage_class_name.is_some() || annotated {
            return Verdict::Allow;
        }
        let Some(default) = default_class(req) else {
            return Verdict::Allow;
        };
        spec.storage_class_name = Some(default.clone());
        Verdict::Mutate(format!(
            "set storageClassName to the default class {default}"
        ))
    }
}

/// `GetDefaultClass`: the newest `StorageClass` marked default, ties by name.
fn default_class(req: &AdmissionRequest<'_>) -> Option<String> {
    req.cluster
        .list(kind_of("StorageClass"), None)
        .iter()
        .filter_map(|o| match &**o {
            Object::StorageClass(sc) if is_default_class(sc) => Some(sc),
            _ => None,
        })
        .max_by(|a, b| {
            let created = |sc: &k8s_openapi::api::storage::v1::StorageClass| {
                sc.metadata.creation_timestamp.as_ref().map(|t| t.0)
            };
            created(a)
                .cmp(&created(b))
                .then_with(|| b.metadata.name.cmp(&a.metadata.name))
        })
        .and_then(|sc| sc.metadata.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::StaticCluster;
    use crate::apiserver::admission::testing::request;

    /// The admission handler's operations and resources (upstream `TestHandles`-style check).
    #[test]
    fn handles_only_its_resources() {
        assert_eq!(DefaultStorageClass.name(), "DefaultStorageClass");
        assert!(!DefaultStorageClass.handles(Operation::Create, kind_of("Pod"), None));
        assert!(DefaultStorageClass.handles(
            Operation::Create,
            kind_of("PersistentVolumeClaim"),
            None
        ));
        assert!(DefaultStorageClass.mutating());
        assert!(!DefaultStorageClass.validating());
    }

    fn class(name: &str, default: Option<&str>, created: &str) -> Object {
        let mut meta = serde_json::json!({"name": name, "creationTimestamp": created});
        if let Some(v) = default {
            meta["annotations"] =
                serde_json::json!({"storageclass.kubernetes.io/is-default-class": v});
        }
        Object::from_json(
            kind_of("StorageClass"),
            serde_json::json!({"metadata": meta, "provisioner": "p"}),
        )
        .unwrap()
    }

    /// Mirrors `TestAdmission` of `setdefault/admission_test.go`: the class a
    /// claim ends up with.
    #[test]
    fn claims_get_the_default_class() {
        let t1 = "2026-11-30T02:20:30Z";
        let t2 = "2026-11-30T02:21:30Z";
        let classes = [
            class("default1", Some("true"), t1),
            class("default2", Some("true"), t2),
            class("nondefault", Some("false"), t2),
            class("plain", None, t2),
        ];
        let cases: [(&str, &[Object], serde_json::Value, Option<&str>); 5] = [
            (
                "no class, one default",
                &classes[..1],
                serde_json::json!({}),
                Some("default1"),
            ),
            (
                "no class, newest default wins",
                &classes[..],
                serde_json::json!({}),
                Some("default2"),
            ),
            (
                "no default class",
                &classes[2..],
                serde_json::json!({}),
                None,
            ),
            (
                "class set stays",
                &classes[..],
                serde_json::json!({"storageClassName": "foo"}),
                Some("foo"),
            ),
            (
                "empty class stays empty",
                &classes[..],
                serde_json::json!({"storageClassName": ""}),
                Some(""),
            ),
        ];
        for (name, objects, spec, want) in cases {
            let cluster = StaticCluster::new(objects.to_vec());
            let req = request(
                Operation::Create,
                "PersistentVolumeClaim",
                Some("default"),
                "claim",
                &cluster,
            );
            let mut pvc = Object::from_json(
                kind_of("PersistentVolumeClaim"),
                serde_json::json!({"metadata": {"name": "claim", "namespace": "default"}, "spec": spec}),
            )
            .unwrap();
            DefaultStorageClass.admit(&req, &mut pvc, &mut Rng::new(1));
            let Object::PersistentVolumeClaim(pvc) = pvc else {
                unreachable!()
            };
            let got = pvc.spec.and_then(|s| s.storage_class_name);
            assert_eq!(got.as_deref(), want, "{name}");
        }
    }
}
