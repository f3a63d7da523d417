//! The `Simulation` object (`podflow.dev/v1alpha1`): what a cluster file needs
//! that Kubernetes has no object for — the API server's token users, the
//! image registry the nodes pull from and whether the cluster reaches the
//! internet (docs/cluster-files.md).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::location::{InputError, Location};
use super::tree::{Node, Step};

/// `apiVersion` of the `Simulation` kind.
pub const SIMULATION_API_VERSION: &str = "podflow.dev/v1alpha1";

/// What a cluster file says about the world around the cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Simulation {
    /// The API server's static token authenticator (`--token-auth-file`).
    #[serde(default)]
    pub users: Vec<User>,
    /// The image registry the nodes pull from.
    #[serde(default)]
    pub registry: RegistrySpec,
    /// Whether the cluster reaches the internet (the default): `false`
    /// cuts it off, and `CoreDNS` cannot forward a public name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internet: Option<bool>,
}

/// One line of the token file: a bearer token and the user it authenticates.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct User {
    /// The user name (`jane`).
    pub name: String,
    /// The bearer token (`jane-token`).
    pub token: String,
    /// Groups, besides `system:authenticated`, which every authenticated user has.
    #[serde(default)]
    pub groups: Vec<String>,
}

/// The `registry` section of a `Simulation`: images that cannot be pulled,
/// and images beyond the catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RegistrySpec {
    /// References whose pulls fail (`ErrImagePull`), as the spec writes them.
    #[serde(default)]
    pub missing: Vec<String>,
    /// Images the registry holds besides (or instead of) the catalog's.
    #[serde(default)]
    pub images: Vec<RegistryImage>,
    /// Only the catalog's images and `images` exist: a pull of any other
    /// reference fails as a `missing` one does (a mistyped tag, say).
    #[serde(default)]
    pub closed: bool,
    /// Any reference pulls, as before podflow knew the public registries.
    #[serde(default)]
    pub open: bool,
}

/// One image of the registry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RegistryImage {
    /// The reference (`nginx:1.27`).
    pub name: String,
    /// Its size, as `Node.status.images[].sizeBytes` reports it.
    pub size_bytes: u64,
}

impl Simulation {
    /// Adds another `Simulation` document's users and images to this one.
    pub fn extend(&mut self, other: Simulation) {
        self.users.extend(other.users);
        self.registry.missing.extend(other.registry.missing);
        self.registry.images.extend(other.registry.images);
        self.registry.closed |= other.registry.closed;
        self.registry.open |= other.registry.open;
        if other.internet == Some(false) || self.internet.is_none() {
            self.internet = other.internet;
        }
    }

    /// Whether the cluster reaches the internet: unless a document says `internet: false`.
    pub fn reaches_internet(&self) -> bool {
        self.internet != Some(false)
    }

    /// Reads a `Simulation` document; errors name the file, line, column and field.
    pub(crate) fn from_node(file: &str, node: &Node) -> Result<Simulation, InputError> {
        let mut value = node.to_json();
        if let Value::Object(map) = &mut value {
            for key in ["apiVersion", "kind", "metadata"] {
                map.remove(key);
            }
        }
        serde_path_to_error::deserialize::<_, Simulation>(value).map_err(|e| {
            let steps: Vec<Step> = e
                .path()
                .iter()
                .map_while(|segment| match segment {
                    serde_path_to_error::Segment::Map { key } => Some(Step::Key(key.clone())),
                    serde_path_to_error::Segment::Seq { index } => Some(Step::Index(*index)),
                    _ => None,
                })
                .collect();
            let place = node.locate(&steps);
            InputError::at(
                &Location::new(file, place.line, place.column),
                e.into_inner().to_string(),
            )
            .with_field_path(super::manifest::format_path(&steps))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::parse_yaml;

    fn read(text: &str) -> Result<Simulation, String> {
        let nodes = parse_yaml(text).unwrap();
        Simulation::from_node("c.yaml", &nodes[0]).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_users_and_registry() {
        let sim = read(
            "apiVersion: podflow.dev/v1alpha1\nkind: Simulation\nusers:\n  - {name: jane, token: jane-token, groups: [developers]}\nregistry:\n  missing: [\"nginx:doesnotexist\"]\n  images:\n    - {name: \"nginx:1.27\", sizeBytes: 72000000}\n",
        )
        .unwrap();
        assert_eq!(sim.users[0].groups, ["developers"]);
        assert_eq!(sim.registry.images[0].size_bytes, 72_000_000);
        assert!(
            sim.reaches_internet(),
            "the internet is there unless cut off"
        );
        let offline = read("kind: Simulation\ninternet: false\n").unwrap();
        assert!(!offline.reaches_internet());
        let mut both = sim.clone();
        both.extend(offline);
        both.extend(read("kind: Simulation\n").unwrap());
        assert!(
            !both.reaches_internet(),
            "one document cuts the cluster off"
        );
    }

    #[test]
    fn errors_name_the_place_and_field() {
        let cases = [
            (
                "kind: Simulation\nusers:\n  - {name: jane, token: t, group: [x]}\n",
                "c.yaml:3:35: users[0].group: unknown field `group`, expected one of `name`, `token`, `groups`",
            ),
            (
                "kind: Simulation\nregistry:\n  images:\n    - {name: a, sizeBytes: big}\n",
                "c.yaml:4:28: registry.images[0].sizeBytes: invalid type: string \"big\", expected u64",
            ),
            (
                "kind: Simulation\nusers:\n  - {name: jane}\n",
                "c.yaml:3:5: users[0]: missing field `token`",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(read(text).unwrap_err(), want, "{text}");
        }
    }
}
