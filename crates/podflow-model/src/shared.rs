//! An object of one kind held by a component as the store holds it: the
//! `Arc<Object>` a watch event or list carries, read as its kind. The
//! scheduler's cache and the kubelets keep the Pods they see this way, so a
//! Pod seen by several components (or kept across many revisions) is one
//! allocation, not a copy per component.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

use super::object::{Object, Variant};

/// An `Arc<Object>` known to hold a `T`.
pub struct Shared<T> {
    object: Arc<Object>,
    kind: PhantomData<fn() -> T>,
}

impl<T: Variant> Shared<T> {
    /// The `T` in `object`, shared with it; `None` for another kind.
    pub fn of(object: &Arc<Object>) -> Option<Shared<T>> {
        T::of(object).map(|_| Shared {
            object: Arc::clone(object),
            kind: PhantomData,
        })
    }

    /// The object this shares.
    pub fn object(&self) -> &Arc<Object> {
        &self.object
    }
}

impl<T: Variant> From<T> for Shared<T> {
    fn from(value: T) -> Shared<T> {
        Shared {
            object: Arc::new(value.into_object()),
            kind: PhantomData,
        }
    }
}

impl<T: Variant> Deref for Shared<T> {
    type Target = T;

    fn deref(&self) -> &T {
        // Both constructors check the kind.
        T::of(&self.object).expect("a Shared<T> holds a T")
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Shared<T> {
        Shared {
            object: Arc::clone(&self.object),
            kind: PhantomData,
        }
    }
}

impl<T: Variant + fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: Variant + PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Shared<T>) -> bool {
        Arc::ptr_eq(&self.object, &other.object) || **self == **other
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{Node, Pod};

    use super::*;

    fn pod(name: &str) -> Pod {
        let mut pod = Pod::default();
        pod.metadata.name = Some(name.to_owned());
        pod
    }

    #[test]
    fn shares_the_object_it_was_made_from() {
        let object = Arc::new(Object::Pod(pod("web")));
        let shared = Shared::<Pod>::of(&object).expect("a Pod");
        assert!(Arc::ptr_eq(shared.object(), &object));
        assert_eq!(shared.metadata.name.as_deref(), Some("web"));
        assert_eq!(Arc::strong_count(&object), 2);
    }

    #[test]
    fn another_kind_is_not_taken_for_it() {
        let object = Arc::new(Object::Node(Node::default()));
        assert!(Shared::<Pod>::of(&object).is_none());
    }

    #[test]
    fn equal_by_content_as_the_objects_are() {
        assert_eq!(Shared::from(pod("a")), Shared::from(pod("a")));
        assert_ne!(Shared::from(pod("a")), Shared::from(pod("b")));
    }
}
