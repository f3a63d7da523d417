//! Which names the internet answers: a name under a top-level domain that
//! exists resolves (the public registries' hosts among them), one under a
//! special-use domain (RFC 2606 and RFC 6761: `.test`, `.example`,
//! `.invalid`, `.localhost`, and mDNS's `.local`) or an unknown one does not.
//! `CoreDNS`'s `forward . /etc/resolv.conf` sends such names to the node's
//! resolver; this is what that resolver would find.

use crate::public_registries;

/// Special-use domains no public resolver answers (NXDOMAIN).
const SPECIAL_USE: [&str; 5] = ["test", "example", "invalid", "localhost", "local"];

/// Top-level domains that exist (a sample: the generic ones and the
/// country codes the documentation's examples use).
const TOP_LEVEL: [&str; 48] = [
    "com", "org", "net", "io", "dev", "app", "edu", "gov", "info", "co", "me", "sh", "ai", "xyz",
    "cloud", "site", "tech", "online", "biz", "ch", "de", "uk", "fr", "eu", "nl", "se", "no", "fi",
    "dk", "pl", "cz", "at", "be", "it", "es", "pt", "us", "ca", "au", "jp", "cn", "in", "br", "ru",
    "kr", "tw", "nz", "ie",
];

/// What the internet's resolvers say of a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublicName {
    /// It exists: a resolver answers with its address.
    Exists,
    /// It does not (`NXDOMAIN`): a special-use domain, or a top-level domain
    /// that does not exist.
    NoSuchDomain,
    /// Not a name for the internet: one label (`mydb`), which the search
    /// path keeps inside the cluster.
    NotPublic,
}

/// What the internet says of `name` (a trailing dot allowed).
pub fn public_name(name: &str) -> PublicName {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    let Some((_, tld)) = name.rsplit_once('.') else {
        return PublicName::NotPublic;
    };
    if SPECIAL_USE.contains(&tld) {
        PublicName::NoSuchDomain
    } else if TOP_LEVEL.contains(&tld) || public_registries().hosts.contains(name.as_str()) {
        PublicName::Exists
    } else {
        PublicName::NoSuchDomain
    }
}

/// Whether `name` ends in a top-level domain podflow knows, existing or
/// special-use: a name `CoreDNS` forwards rather than one a Pod means inside
/// the cluster (`myservice.otherns`).
pub fn looks_public(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name.rsplit_once('.')
        .is_some_and(|(_, tld)| SPECIAL_USE.contains(&tld) || TOP_LEVEL.contains(&tld))
}

/// A stable address for a public name: one of TEST-NET-3 (`203.0.113.0/24`,
/// RFC 5737), as podflow knows no real addresses.
pub fn public_address(name: &str) -> String {
    let h = name
        .trim_end_matches('.')
        .to_ascii_lowercase()
        .bytes()
        .fold(2_166_136_261_u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(16_777_619)
        });
    format!("203.0.113.{}", (h % 254) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6761 §6 (`.test`, `.localhost`, `.invalid`) and RFC 2606 §2
    /// (`.example`): no resolver answers them; the documentation's hosts do.
    #[test]
    fn special_use_domains_do_not_resolve() {
        for (name, want) in [
            ("info.cern.ch", PublicName::Exists),
            ("kubernetes.io", PublicName::Exists),
            ("kubernetes.io.", PublicName::Exists),
            ("registry.k8s.io", PublicName::Exists),
            ("example.com", PublicName::Exists),
            ("nothere.example", PublicName::NoSuchDomain),
            ("registry.invalid", PublicName::NoSuchDomain),
            ("a.test", PublicName::NoSuchDomain),
            ("db.local", PublicName::NoSuchDomain),
            ("myservice.otherns", PublicName::NoSuchDomain),
            ("mydb", PublicName::NotPublic),
        ] {
            assert_eq!(public_name(name), want, "{name}");
        }
        assert!(looks_public("x.invalid") && looks_public("kubernetes.io"));
        assert!(!looks_public("myservice.default") && !looks_public("mydb"));
        assert_eq!(
            public_address("info.cern.ch"),
            public_address("INFO.cern.ch.")
        );
    }
}
