//! A request's query parameters, as the API server reads them for lists,
//! watches, writes and deletes (`metav1.ListOptions`, `CreateOptions`,
//! `PatchOptions`, `DeleteOptions`; `pods/log`'s `PodLogOptions`).

/// The parameters podflow reads, each as sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    /// Reads `a=b&c=d`, percent-decoded.
    pub fn parse(text: &str) -> Query {
        Query {
            pairs: form_urlencoded::parse(text.as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        }
    }

    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether `key` is `true` or `1`, as Go's `strconv.ParseBool` reads it.
    pub fn flag(&self, key: &str) -> bool {
        matches!(
            self.get(key),
            Some("true" | "1" | "t" | "T" | "TRUE" | "True")
        )
    }

    /// `key` as a number, if it is one.
    pub fn number(&self, key: &str) -> Option<i64> {
        self.get(key).and_then(|v| v.parse().ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_percent_decoded() {
        let q = Query::parse("labelSelector=app%3Dweb%2Ctier+in+%28a%29&watch=1&timeoutSeconds=30");
        assert_eq!(q.get("labelSelector"), Some("app=web,tier in (a)"));
        assert!(q.flag("watch"));
        assert!(!q.flag("allowWatchBookmarks"));
        assert_eq!(q.number("timeoutSeconds"), Some(30));
    }
}
