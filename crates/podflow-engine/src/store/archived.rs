//! One object version as the steps of a computed run keep it: the object
//! itself while it is current, its JSON compressed once a newer version has
//! replaced it, decoded again when a step shows it.
//!
//! A 10,000-replica run keeps some 40,000 Pod versions for its steps. In
//! k8s-openapi's types a Pod takes about 14 KB (a `Container` is 2.3 KB and a
//! `Volume` 3.3 KB before any string); as LZ4 against the JSON of a sibling of
//! the same kind it takes a few hundred bytes. A decoded version stays shared
//! while anyone holds it, so the panes of one frame decode each version once.
//!
//! Simplified: a superseded version comes back from its JSON, so its times
//! keep the whole seconds the API server serves (`metadata.creationTimestamp`
//! is written `2025-11-30T02:20:36Z`), not the milliseconds of the
//! simulation's clock. Nothing shown reads finer than the JSON.

use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};

use podflow_model::{Kind, Object};

use super::Held;

/// A handle to one stored version; clones share it.
#[derive(Clone)]
pub struct Archived(Arc<Version>);

struct Version {
    kind: &'static Kind,
    state: Mutex<State>,
}

enum State {
    /// Current in the run's newest store, which holds it too.
    Live(Arc<Object>),
    /// Replaced by a newer version.
    Encoded {
        /// The JSON, compressed against `dictionary`.
        bytes: Box<[u8]>,
        dictionary: Arc<[u8]>,
        /// The reader's digest ([`set_digester`]), made before it was encoded.
        digest: Option<Digest>,
    },
}

/// What a reader keeps of each version, to read without decoding it (the
/// TUI's objects pane: owners, status). Any value; the reader downcasts it.
pub type Digest = Arc<dyn Any + Send + Sync>;

/// Makes a [`Digest`] of an object.
pub type Digester = fn(&Object) -> Digest;

static DIGESTER: OnceLock<Digester> = OnceLock::new();

/// Has every version digested by `digester` as it is encoded, for the
/// process (the TUI sets it once, before it computes a run). A digest is a
/// memo: a reader makes it afresh from [`Archived::load`] where it is missing.
pub fn set_digester(digester: Digester) {
    // A second call would be the same reader's: the first stays.
    let _ = DIGESTER.set(digester);
}

impl Archived {
    /// A handle to the current version `object`.
    pub fn live(object: Arc<Object>) -> Archived {
        Archived(Arc::new(Version {
            kind: object.kind(),
            state: Mutex::new(State::Live(object)),
        }))
    }

    /// The object: shared while it is current or among the versions
    /// decoded lately, else decoded afresh.
    pub fn load(&self) -> Arc<Object> {
        let state = self.state();
        match &*state {
            State::Live(object) => Arc::clone(object),
            State::Encoded {
                bytes, dictionary, ..
            } => {
                if let Some(object) = RecentlyDecoded::find(&self.0) {
                    return object;
                }
                let json = lz4_flex::block::decompress_size_prepended_with_dict(bytes, dictionary)
                    .expect("a version decompresses with the dictionary it was compressed with");
                let object = Arc::new(
                    Object::decode(self.0.kind, &json)
                        .expect("a version decodes from the JSON it was encoded to"),
                );
                RecentlyDecoded::keep(&self.0, &object);
                object
            }
        }
    }

    /// Which version this is (equal for handles that share one), while a
    /// handle to it lives.
    pub(super) fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// Whether this is the current version `object` itself.
    pub(super) fn holds(&self, object: &Arc<Object>) -> bool {
        matches!(&*self.state(), State::Live(live) if Arc::ptr_eq(live, object))
    }

    /// The version's digest ([`set_digester`]), made while it was decoded;
    /// `None` while it is current (reading it costs nothing then) or when no
    /// digester was set.
    pub fn digest(&self) -> Option<Digest> {
        match &*self.state() {
            State::Encoded { digest, .. } => digest.clone(),
            State::Live(_) => None,
        }
    }

    /// Whether a newer version has replaced this one ([`Archived::retire`]).
    pub fn is_retired(&self) -> bool {
        matches!(*self.state(), State::Encoded { .. })
    }

    /// Keeps the version encoded from now on: a newer one has replaced it.
    pub(super) fn retire(&self, dictionaries: &mut Dictionaries) {
        let mut state = self.state();
        let State::Live(object) = &*state else {
            return;
        };
        let json = object.encode();
        let dictionary = dictionaries.next_for(self.0.kind, &json);
        let bytes =
            lz4_flex::block::compress_prepend_size_with_dict(&json, &dictionary).into_boxed_slice();
        let digest = DIGESTER.get().map(|digester| digester(object));
        *state = State::Encoded {
            bytes,
            dictionary,
            digest,
        };
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Two handles are equal when they share one version: a run's snapshots
/// share an unchanged entry's handle, and comparing contents would decode.
impl PartialEq for Archived {
    fn eq(&self, other: &Archived) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Held for Archived {
    fn same(&self, other: &Archived) -> bool {
        self == other
    }

    fn load(&self) -> Arc<Object> {
        Archived::load(self)
    }
}

impl fmt::Debug for Archived {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = if self.is_retired() { "encoded" } else { "live" };
        write!(f, "Archived({} {state})", self.0.kind.kind)
    }
}

/// How many of the versions decoded last stay decoded: the panes of the
/// next frames read the same objects again (the objects pane's rows, the
/// selected object), and a step back and forth comes back to them.
const KEPT_DECODED: usize = 256;

/// The versions decoded last (for every run of the process), each with its
/// handle's version: held weakly, so that its address is not reused while
/// it is looked up by it. (A weak reference to the object itself would keep
/// the object's whole block allocated, 2 KB for a Pod, after it is dropped.)
struct RecentlyDecoded;

static RECENTLY_DECODED: Mutex<VecDeque<(Weak<Version>, Arc<Object>)>> =
    Mutex::new(VecDeque::new());

impl RecentlyDecoded {
    fn kept() -> MutexGuard<'static, VecDeque<(Weak<Version>, Arc<Object>)>> {
        RECENTLY_DECODED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// `version`'s object, if it was decoded lately.
    fn find(version: &Arc<Version>) -> Option<Arc<Object>> {
        let kept = Self::kept();
        let at = Arc::as_ptr(version);
        let found = kept
            .iter()
            .rev()
            .find(|(v, _)| std::ptr::eq(v.as_ptr(), at));
        found.map(|(_, object)| Arc::clone(object))
    }

    fn keep(version: &Arc<Version>, object: &Arc<Object>) {
        let mut kept = Self::kept();
        if kept.len() == KEPT_DECODED {
            kept.pop_front();
        }
        kept.push_back((Arc::downgrade(version), Arc::clone(object)));
    }
}

/// How many versions of a kind are compressed against one dictionary
/// before a newer sibling becomes the next: a run's Pods change as it goes
/// (scheduled, then started), and a recent sibling shares the most.
const USES_PER_DICTIONARY: u32 = 32;

/// The dictionaries versions are compressed against: per kind, the JSON of
/// a version retired lately.
#[derive(Clone, Default)]
pub struct Dictionaries {
    by_kind: HashMap<&'static str, (Arc<[u8]>, u32)>,
}

impl Dictionaries {
    /// The dictionary for a version of `kind` whose JSON is `json`; the
    /// first of a kind is compressed against nothing and becomes the next.
    fn next_for(&mut self, kind: &Kind, json: &[u8]) -> Arc<[u8]> {
        let (dictionary, uses) = self
            .by_kind
            .entry(kind.kind)
            .or_insert_with(|| (Arc::from(&[][..]), USES_PER_DICTIONARY));
        let current = Arc::clone(dictionary);
        *uses += 1;
        if *uses >= USES_PER_DICTIONARY {
            *dictionary = Arc::from(json);
            *uses = 0;
        }
        current
    }
}

#[cfg(test)]
mod tests {
    use super::{Archived, Dictionaries};
    use podflow_model::Object;
    use std::sync::Arc;

    fn pod(name: &str, node: Option<&str>) -> Arc<Object> {
        let mut spec =
            serde_json::json!({"containers": [{"name": "nginx", "image": "nginx:1.27"}]});
        if let Some(node) = node {
            spec["nodeName"] = node.into();
        }
        let value = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "resourceVersion": "7",
                "creationTimestamp": "2025-11-30T02:20:36Z"},
            "spec": spec});
        Arc::new(Object::from_json(podflow_model::kinds::kind_of("Pod"), value).unwrap())
    }

    #[test]
    fn a_retired_version_loads_as_it_was() {
        let mut dictionaries = Dictionaries::default();
        let versions: Vec<(Archived, Object)> = (0..100)
            .map(|i| {
                let node = format!("node-{i}");
                let object = pod(&format!("web-{i}"), (i % 2 == 0).then_some(&*node));
                (Archived::live(Arc::clone(&object)), (*object).clone())
            })
            .collect();
        for (archived, _) in &versions {
            assert!(!archived.is_retired());
            archived.retire(&mut dictionaries);
            assert!(archived.is_retired());
        }
        for (archived, object) in &versions {
            assert_eq!(*archived.load(), *object);
        }
    }

    #[test]
    fn a_version_is_shared_while_live_and_decoded_once_lately() {
        let mut dictionaries = Dictionaries::default();
        let object = pod("web-0", Some("node-1"));
        let archived = Archived::live(Arc::clone(&object));
        assert!(
            Arc::ptr_eq(&archived.load(), &object),
            "live: the object itself"
        );
        archived.retire(&mut dictionaries);
        let first = archived.load();
        assert!(!Arc::ptr_eq(&first, &object), "decoded");
        assert_eq!(first, object);
        assert!(Arc::ptr_eq(&first, &archived.load()), "decoded once lately");
        assert!(first.as_pod().is_some());
        assert_eq!(archived.clone(), archived, "clones share the version");
        assert_ne!(Archived::live(Arc::clone(&first)), archived);
    }
}
