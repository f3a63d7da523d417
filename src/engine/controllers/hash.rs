//! The pod-template-hash (`pkg/controller/controller_utils.go`, `ComputeHash`):
//! FNV-32a over the template, then the collision count's four bytes, written
//! in decimal and encoded with `rand.SafeEncodeString`
//! (`staging/src/k8s.io/apimachinery/pkg/util/rand/rand.go`).
//!
//! Upstream feeds the hash with `hashutil.DeepHashObject`, a `go-spew` dump of
//! the Go struct, which cannot be reproduced byte for byte outside Go. podflow
//! hashes the template's canonical JSON instead (keys sorted, no spaces): the
//! same template always gets the same hash, a changed template another, and
//! the name has upstream's shape and alphabet, but not upstream's exact value.

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
    let mut bytes = canonical(&json).into_bytes();
    if let Some(count) = collision_count {
        // binary.LittleEndian.PutUint32 into an 8-byte slice: four bytes, four zeros.
        bytes.extend_from_slice(&count.to_le_bytes());
        bytes.extend_from_slice(&[0; 4]);
    }
    safe_encode_string(&fnv32a(&bytes).to_string())
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
}
