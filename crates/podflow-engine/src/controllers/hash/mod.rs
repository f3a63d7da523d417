//! The pod-template-hash (`pkg/controller/controller_utils.go`, `ComputeHash`):
//! FNV-32a over the template, then the collision count's four bytes, written
//! in decimal and encoded with `rand.SafeEncodeString`
//! (`staging/src/k8s.io/apimachinery/pkg/util/rand/rand.go`).
//!
//! Upstream feeds the hash with `hashutil.DeepHashObject` (`pkg/util/hash/hash.go`):
//! go-spew's `%#v` dump of the Go struct (`dump.ForHash`). podflow writes the
//! same dump ([`spew`]) from the Go declarations of the template's types
//! ([`go_types`]), so a template gets the name upstream gives it. A template
//! using a field those declarations leave out is hashed from its canonical
//! JSON instead: stable, and of upstream's shape, but not upstream's value.

pub(crate) mod go_types;
mod spew;

use k8s_openapi::api::core::v1::PodTemplateSpec;
use serde_json::Value;

/// The letters `SafeEncodeString` writes: no vowels, no 0, 1 or 3, so no words.
pub const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// FNV-1a, 32 bits (`hash/fnv`, `New32a`).
pub fn fnv32a(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for b in bytes {
        hash ^= u32::from(*b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// `rand.SafeEncodeString`: each byte mapped onto [`ALPHANUMS`].
pub fn safe_encode_string(s: &str) -> String {
    s.bytes()
        .map(|b| char::from(ALPHANUMS[usize::from(b) % ALPHANUMS.len()]))
        .collect()
}

/// The hash of `template` with `collision_count` (`ComputeHash`).
pub fn compute_hash(template: &PodTemplateSpec, collision_count: Option<i32>) -> String {
    let json = serde_json::to_value(template).unwrap_or(Value::Null);
    let mut bytes = go_dump(&json)
        .unwrap_or_else(|_| canonical(&json))
        .into_bytes();
    if let Some(count) = collision_count {
        // binary.LittleEndian.PutUint32 into an 8-byte slice: four bytes, four zeros.
        bytes.extend_from_slice(&count.to_le_bytes());
        bytes.extend_from_slice(&[0; 4]);
    }
    safe_encode_string(&fnv32a(&bytes).to_string())
}

/// `dump.ForHash(template)`: what upstream writes into the hasher.
fn go_dump(template: &Value) -> Result<String, spew::Unsupported> {
    spew::dump(go_types::schema(), "v1.PodTemplateSpec", template)
}

/// JSON with object keys sorted and no whitespace.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&map[k])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv32a_matches_the_reference_vectors() {
        // The FNV reference test vectors (as hash/fnv's TestGolden32a).
        assert_eq!(fnv32a(b""), 0x811c_9dc5);
        assert_eq!(fnv32a(b"a"), 0xe40c_292c);
        assert_eq!(fnv32a(b"ab"), 0x4d25_05ca);
        assert_eq!(fnv32a(b"abc"), 0x1a47_e90b);
    }

    #[test]
    fn safe_encoding_maps_digits_as_upstream() {
        // Byte b maps to ALPHANUMS[b % 27], as `SafeEncodeString` does.
        assert_eq!(safe_encode_string("0123456789"), "456789bcdf");
        assert_eq!(safe_encode_string("abc"), "vwx");
        assert_eq!(safe_encode_string(""), "");
    }

    #[test]
    fn the_hash_is_stable_and_changes_with_the_template_and_collisions() {
        let template: PodTemplateSpec = serde_json::from_value(serde_json::json!({
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}
        }))
        .unwrap();
        let hash = compute_hash(&template, None);
        assert_eq!(hash, compute_hash(&template.clone(), None));
        assert!((1..=10).contains(&hash.len()), "{hash}");
        assert!(hash.bytes().all(|b| b"456789bcdf".contains(&b)), "{hash}");
        assert_ne!(hash, compute_hash(&template, Some(1)));
        let mut other = template;
        other.spec.as_mut().unwrap().containers[0].image = Some("nginx:1.28".into());
        assert_ne!(hash, compute_hash(&other, None));
    }

    /// A Deployment's template as the deployment controller reads it: the
    /// user's YAML, then the API server's defaults.
    fn defaulted(template: &serde_json::Value) -> PodTemplateSpec {
        use crate::apiserver::defaults;
        use podflow_model::Object;
        let deployment = serde_json::json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "x"},
            "spec": {"selector": {"matchLabels": {}}, "template": template}
        });
        let mut object = Object::Deployment(serde_json::from_value(deployment).unwrap());
        defaults::apply(&mut object);
        let Object::Deployment(deployment) = object else {
            unreachable!()
        };
        deployment.spec.template
    }

    // The expected names below are upstream's: a Go program fed the same
    // templates to go-spew 1.1.1 with `dump.ForHash`'s configuration, over Go
    // types declared as `declarations.txt` declares them, then FNV-32a and
    // `SafeEncodeString`, as `controller.ComputeHash` does. Its dump and the
    // one podflow writes were byte-identical.

    #[test]
    fn the_nginx_template_hashes_as_upstream() {
        let template = defaulted(&serde_json::json!({
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27",
                "ports": [{"containerPort": 80}]}]}
        }));
        assert_eq!(compute_hash(&template, None), "75cc477c85");
        let dump = go_dump(&serde_json::to_value(&template).unwrap()).unwrap();
        assert!(dump.starts_with(
            "(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string) GenerateName:(string) \
             Namespace:(string) SelfLink:(string) UID:(types.UID) ResourceVersion:(string) \
             Generation:(int64)0 CreationTimestamp:(v1.Time){Time:(time.Time){wall:(uint64)0 \
             ext:(int64)0 loc:(*time.Location)<nil>}} DeletionTimestamp:(*v1.Time)<nil> \
             DeletionGracePeriodSeconds:(*int64)<nil> Labels:(map[string]string)map[app:nginx] \
             Annotations:(map[string]string)<nil>"
        ));
        assert!(dump.contains(
            "Ports:([]v1.ContainerPort)[{Name:(string) HostPort:(int32)0 ContainerPort:(int32)80 \
             Protocol:(v1.Protocol)TCP HostIP:(string)}]"
        ));
        assert!(dump.contains(
            "SecurityContext:(*v1.PodSecurityContext){SELinuxOptions:(*v1.SELinuxOptions)<nil>"
        ));
        assert!(
            dump.contains("EnableServiceLinks:(*bool)<nil>"),
            "a template has no service-links default"
        );
    }

    #[test]
    fn a_rich_template_hashes_as_upstream() {
        // Quantities (their private fields), int-or-strings, env, probes,
        // volumes, tolerations, affinity, as the API server stored them.
        let template: PodTemplateSpec = serde_json::from_str(RICH).unwrap();
        assert_eq!(compute_hash(&template, None), "7fd9d4c77f");
        let dump = go_dump(&serde_json::to_value(&template).unwrap()).unwrap();
        assert!(dump.contains(
            "Requests:(v1.ResourceList)map[cpu:{i:(resource.int64Amount){value:(int64)100 \
             scale:(resource.Scale)-3} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)100m \
             Format:(resource.Format)DecimalSI} memory:{i:(resource.int64Amount){value:(int64)134217728 \
             scale:(resource.Scale)0} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string) \
             Format:(resource.Format)BinarySI}]"
        ));
        assert!(dump.contains(
            "HTTPGet:(*v1.HTTPGetAction){Path:(string)/healthz Port:(intstr.IntOrString){Type:(intstr.Type)0 \
             IntVal:(int32)8080 StrVal:(string)}"
        ));
    }

    const RICH: &str = r#"{"metadata":{"labels":{"app":"web","tier":"front"},"annotations":{"note":"x y"}},"spec":{"volumes":[{"name":"conf","configMap":{"name":"web-conf","defaultMode":420}},{"name":"scratch","emptyDir":{}}],"initContainers":[{"name":"init","image":"busybox:1.36","command":["sh","-c","echo hi"],"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"containers":[{"name":"web","image":"nginx:1.27","env":[{"name":"MODE","value":"prod"},{"name":"POD","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],"resources":{"limits":{"memory":"128Mi","cpu":"250m"},"requests":{"cpu":"100m","memory":"128Mi"}},"volumeMounts":[{"name":"conf","mountPath":"/etc/web","readOnly":true}],"livenessProbe":{"httpGet":{"path":"/healthz","port":8080,"scheme":"HTTP"},"initialDelaySeconds":3,"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},"readinessProbe":{"tcpSocket":{"port":"http"},"timeoutSeconds":1,"periodSeconds":5,"successThreshold":1,"failureThreshold":3},"ports":[{"name":"http","containerPort":80,"protocol":"TCP"}],"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"Always","securityContext":{"runAsNonRoot":true,"capabilities":{"drop":["ALL"]}}}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","nodeSelector":{"disk":"ssd"},"securityContext":{"fsGroup":2000},"schedulerName":"default-scheduler","tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule","tolerationSeconds":5}],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}]}]}}}}}"#;

    #[test]
    fn a_template_beyond_the_declarations_still_gets_a_stable_name() {
        let mut value: serde_json::Value = serde_json::from_str(RICH).unwrap();
        value["spec"]["evictionResponders"] = serde_json::json!([{"name": "a", "priority": 1}]);
        let template: PodTemplateSpec = serde_json::from_value(value).unwrap();
        assert!(go_dump(&serde_json::to_value(&template).unwrap()).is_err());
        let hash = compute_hash(&template, None);
        assert_eq!(hash, compute_hash(&template, None));
        assert_ne!(hash, "7fd9d4c77f");
    }

    #[test]
    fn every_declared_field_type_is_declared() {
        let schema = go_types::schema();
        // Types that only ever appear as nil pointers or empty lists here.
        let opaque = ["v1.EvictionResponder", "time.Location", "inf.Dec"];
        let mut names: Vec<_> = schema.struct_names().copied().collect();
        names.sort_unstable();
        assert!(names.len() > 100, "{} structs", names.len());
        for name in names {
            for field in schema.fields(name) {
                let base = field
                    .ty
                    .trim_start_matches('*')
                    .trim_start_matches("[]")
                    .trim_start_matches('*');
                let base = base.rsplit(']').next().unwrap_or(base);
                if opaque.contains(&base) {
                    continue;
                }
                assert!(schema.shape(base).is_ok(), "{name}.{}: {base}", field.name);
            }
        }
    }
}
