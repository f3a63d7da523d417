//! A sorted map whose values are shared between its copies and copied only
//! when written: cloning the map (an engine checkpoint, docs/architecture.md, rule 7)
//! costs a pointer per entry, and the first write to an entry after that
//! copies that one entry (`Arc::make_mut`).

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::sync::Arc;

/// `BTreeMap<K, V>` with copy-on-write values.
#[derive(Debug)]
pub struct CowMap<K, V> {
    entries: BTreeMap<K, Arc<V>>,
}

impl<K, V> Default for CowMap<K, V> {
    fn default() -> Self {
        CowMap {
            entries: BTreeMap::new(),
        }
    }
}

impl<K: Clone, V> Clone for CowMap<K, V> {
    fn clone(&self) -> Self {
        CowMap {
            entries: self.entries.clone(),
        }
    }
}

impl<K: Ord, V: Clone> CowMap<K, V> {
    pub fn insert(&mut self, key: K, value: V) {
        self.entries.insert(key, Arc::new(value));
    }

    /// Drops the entry (a snapshot sharing its value keeps it); returns
    /// whether there was one.
    pub fn remove<Q>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.entries.remove(key).is_some()
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.entries.get(key).map(Arc::as_ref)
    }

    /// The value to write, copied first if a snapshot shares it.
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.entries.get_mut(key).map(Arc::make_mut)
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.entries.contains_key(key)
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.entries.keys()
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.values().map(Arc::as_ref)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(k, v)| (k, v.as_ref()))
    }
}

impl<K: Ord + Borrow<str>, V: Clone> std::ops::Index<&str> for CowMap<K, V> {
    type Output = V;

    fn index(&self, key: &str) -> &V {
        self.get(key).expect("no entry for key")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_keeps_its_values_while_the_original_is_written() {
        let mut live: CowMap<String, Vec<u32>> = CowMap::default();
        live.insert("a".into(), vec![1]);
        live.insert("b".into(), vec![2]);
        let snapshot = live.clone();
        live.get_mut("a").expect("a").push(10);
        assert!(live.remove("b"));
        assert!(!live.remove("b"));
        assert!(!live.contains_key("b"));
        assert_eq!(snapshot.get("a"), Some(&vec![1]));
        assert_eq!(snapshot["b"], vec![2]);
        assert_eq!(
            live.iter().collect::<Vec<_>>(),
            [(&"a".to_owned(), &vec![1, 10])]
        );
        // The untouched entry is still the one value both maps point at.
        let mut again = snapshot.clone();
        assert!(std::ptr::eq(
            again.get("b").expect("b"),
            snapshot.get("b").expect("b")
        ));
        again.get_mut("b").expect("b").push(3);
        assert_eq!(snapshot["b"], vec![2]);
    }
}
