//! `ImageLocality` (`pkg/scheduler/framework/plugins/imagelocality/image_locality.go`):
//! favours nodes that already hold the pod's images (`Node.status.images`),
//! each image's size scaled by how many nodes have it, so that pods do not
//! all pile onto the one node that pulled first. The score is not normalised.

use std::borrow::Cow;
use std::collections::BTreeMap;

/// The tests' node fixtures are `Node`s.
#[cfg(test)]
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::api::core::v1::Pod;

use crate::scheduler::framework::{
    CycleState, MAX_NODE_SCORE, NodeInfo, NodeScore, ScorePlugin, Snapshot, Status, score_each,
};

const MB: i64 = 1024 * 1024;
/// Below this sum a node scores 0 (`minThreshold`).
const MIN_THRESHOLD: i64 = 23 * MB;
/// Per container, above this sum a node scores 100 (`maxContainerThreshold`).
const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

const STATE_KEY: &str = "PreScoreImageLocality";

pub struct ImageLocality;

/// What the scheduler's snapshot knows of images cluster-wide: how many nodes
/// list each image name, and how many nodes there are (upstream's
/// `ImageStateSummary.NumNodes`, from `snapshot.go`'s image existence map).
#[derive(Debug, Default, PartialEq, Eq)]
struct Spread {
    nodes_with: BTreeMap<String, usize>,
    total_nodes: usize,
}

impl Spread {
    /// The counts of the pod's own images, read from the snapshot, which
    /// keeps them as nodes come and go (`createImageExistenceMap` in
    /// `pkg/scheduler/backend/cache/snapshot.go`, the cache's image states in
    /// `cache.go`): nothing is walked per node. An image no node lists is
    /// left out, as [`Spread::of`] leaves it out.
    fn of_pod(pod: &Pod, snapshot: &Snapshot<'_>) -> Spread {
        let mut nodes_with = BTreeMap::new();
        for image in containers_images(pod) {
            let name = normalized(image);
            let count = snapshot.nodes_with_image(&name);
            if count > 0 {
                nodes_with.insert(name.into_owned(), count);
            }
        }
        Spread {
            nodes_with,
            total_nodes: snapshot.len(),
        }
    }

    /// Counted from each node's kept image names (`NodeInfo.image_sizes`),
    /// so nodes without images cost nothing.
    fn of(nodes: &[NodeInfo]) -> Spread {
        let mut spread = Spread {
            nodes_with: BTreeMap::new(),
            total_nodes: nodes.len(),
        };
        for name in nodes.iter().flat_map(|n| n.image_sizes.keys()) {
            match spread.nodes_with.get_mut(name) {
                Some(count) => *count += 1,
                None => {
                    spread.nodes_with.insert(name.clone(), 1);
                }
            }
        }
        spread
    }
}

/// `normalizedImageName`: `:latest` appended when the reference has no tag.
/// Nothing more: upstream does not add `docker.io/library/`, so `nginx` in a
/// pod does not match the `docker.io/library/nginx:latest` containerd reports
/// (kubernetes/kubernetes#112699).
pub fn normalized_image_name(name: &str) -> String {
    normalized(name).into_owned()
}

/// [`normalized_image_name`], borrowing the name when it has a tag.
fn normalized(name: &str) -> Cow<'_, str> {
    if name.rfind(':') <= name.rfind('/') {
        Cow::Owned(format!("{name}:latest"))
    } else {
        Cow::Borrowed(name)
    }
}

/// `sumImageScores`: the scaled sizes of the images of the init and app
/// containers that the node already has (`NodeInfo.ImageStates`).
fn sum_image_scores(pod: &Pod, node: &NodeInfo, spread: &Spread) -> i64 {
    if node.image_sizes.is_empty() {
        return 0;
    }
    containers_images(pod)
        .filter_map(|image| {
            let name = normalized(image);
            let size = *node.image_sizes.get(&*name)?;
            let nodes_with = spread.nodes_with.get(&*name).copied().unwrap_or(1);
            Some(scaled_image_score(size, nodes_with, spread.total_nodes))
        })
        .sum()
}

/// `scaledImageScore`: the image's size times the share of nodes that have it
/// (computed in floating point, then truncated, as upstream does).
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
fn scaled_image_score(size: i64, nodes_with: usize, total_nodes: usize) -> i64 {
    if total_nodes == 0 {
        return 0;
    }
    let spread = nodes_with as f64 / total_nodes as f64;
    (size as f64 * spread) as i64
}

fn containers_images(pod: &Pod) -> impl Iterator<Item = &str> {
    let spec = pod.spec.as_ref();
    let init = spec
        .and_then(|s| s.init_containers.as_deref())
        .unwrap_or_default();
    let app = spec.map(|s| s.containers.as_slice()).unwrap_or_default();
    init.iter()
        .chain(app)
        .map(|c| c.image.as_deref().unwrap_or_default())
}

/// `calculatePriority`: the sum clamped to [23 MB, 1000 MB × containers] and
/// scaled to 0..=100 with integer arithmetic.
fn calculate_priority(sum: i64, containers: usize) -> i64 {
    let max_threshold =
        MAX_CONTAINER_THRESHOLD.saturating_mul(i64::try_from(containers).unwrap_or(i64::MAX));
    let clamped = if sum < MIN_THRESHOLD {
        MIN_THRESHOLD
    } else {
        sum.min(max_threshold)
    };
    MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) / (max_threshold - MIN_THRESHOLD)
}

impl ScorePlugin for ImageLocality {
    fn name(&self) -> &'static str {
        "ImageLocality"
    }

    /// How many nodes hold each of the pod's images, of how many nodes,
    /// from the snapshot (upstream reads each node's `ImageStates` in Score).
    fn pre_score(
        &self,
        pod: &Pod,
        _feasible: &[&NodeInfo],
        all: &Snapshot<'_>,
        state: &mut CycleState,
    ) -> Status {
        state.write(STATE_KEY, Spread::of_pod(pod, all));
        Status::success()
    }

    fn score(&self, state: &CycleState, pod: &Pod, node: &NodeInfo) -> i64 {
        // Without PreScore's counts, the node is taken to be the only one.
        let sum = if let Some(spread) = state.read::<Spread>(STATE_KEY) {
            sum_image_scores(pod, node, spread)
        } else {
            sum_image_scores(pod, node, &Spread::of(std::slice::from_ref(node)))
        };
        calculate_priority(sum, containers_images(pod).count())
    }

    /// No node holds any of the pod's images: every node sums 0 (the nodes
    /// are the snapshot's whose image counts `PreScore` read).
    fn uniform_score(&self, state: &CycleState, pod: &Pod, _nodes: &[&NodeInfo]) -> Option<i64> {
        let spread = state.read::<Spread>(STATE_KEY)?;
        let containers = containers_images(pod).count();
        spread
            .nodes_with
            .is_empty()
            .then(|| calculate_priority(0, containers))
    }

    /// Every node scored with one read of the cycle state; a node holding
    /// no images scores what a sum of 0 gives, computed once.
    fn score_nodes<'a>(
        &self,
        state: &CycleState,
        pod: &Pod,
        nodes: &[&'a NodeInfo],
        out: &mut Vec<NodeScore<'a>>,
    ) {
        let Some(spread) = state.read::<Spread>(STATE_KEY) else {
            score_each(nodes.iter().copied(), out, |info| {
                self.score(state, pod, info)
            });
            return;
        };
        let containers = containers_images(pod).count();
        let imageless = calculate_priority(0, containers);
        out.extend(nodes.iter().map(|info| NodeScore {
            name: info.name(),
            score: if info.image_sizes.is_empty() {
                imageless
            } else {
                calculate_priority(sum_image_scores(pod, info, spread), containers)
            },
        }));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use k8s_openapi::api::core::v1::{Container, ContainerImage, NodeStatus, PodSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;
    use crate::scheduler::framework::node_scores;
    use crate::scheduler::prioritize::tests::uniform_agrees;

    /// A node's images as (names, size in MB).
    type Images = &'static [(&'static [&'static str], i64)];

    /// A node holding `images`.
    fn node(name: &str, images: Images) -> NodeInfo {
        let images = images
            .iter()
            .map(|(names, mb)| ContainerImage {
                names: Some(names.iter().map(|n| (*n).to_owned()).collect()),
                size_bytes: Some(mb * MB),
            })
            .collect();
        NodeInfo::new(
            Arc::new(Node {
                metadata: ObjectMeta {
                    name: Some(name.to_owned()),
                    ..ObjectMeta::default()
                },
                status: Some(NodeStatus {
                    images: Some(images),
                    ..NodeStatus::default()
                }),
                ..Node::default()
            }),
            Vec::new(),
        )
    }

    fn container(image: &str) -> Container {
        Container {
            image: Some(image.to_owned()),
            ..Container::default()
        }
    }

    fn pod(images: &[&str], init: &[&str]) -> Pod {
        Pod {
            spec: Some(PodSpec {
                containers: images.iter().map(|i| container(i)).collect(),
                init_containers: (!init.is_empty())
                    .then(|| init.iter().map(|i| container(i)).collect()),
                ..PodSpec::default()
            }),
            ..Pod::default()
        }
    }

    /// `image_locality_test.go`, `TestImageLocalityPriority`, with its nodes
    /// and expected scores.
    #[test]
    #[allow(clippy::too_many_lines)]
    fn test_image_locality_priority() {
        let n403002000: Images = &[
            (&["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40),
            (&["gcr.io/300:latest", "gcr.io/300:v1"], 300),
            (&["gcr.io/2000:latest"], 2000),
        ];
        let n25010: Images = &[
            (&["gcr.io/250:latest"], 250),
            (&["gcr.io/10:latest", "gcr.io/10:v1"], 10),
        ];
        let n60040900: Images = &[
            (&["gcr.io/600:latest"], 600),
            (&["gcr.io/40:latest"], 40),
            (&["gcr.io/900:latest"], 900),
        ];
        let n300600900: Images = &[
            (&["gcr.io/300:latest"], 300),
            (&["gcr.io/600:latest"], 600),
            (&["gcr.io/900:latest"], 900),
        ];
        let n400030: Images = &[(&["gcr.io/4000:latest"], 4000), (&["gcr.io/30:latest"], 30)];
        let n203040: Images = &[
            (&["gcr.io/20:latest"], 20),
            (&["gcr.io/30:latest"], 30),
            (&["gcr.io/40:latest"], 40),
        ];
        let none: Images = &[];
        let cases: Vec<(&str, Pod, Vec<Images>, Vec<i64>)> = vec![
            (
                "two images spread on two nodes, prefer the larger image one",
                pod(&["gcr.io/40", "gcr.io/250"], &[]),
                vec![n403002000, n25010],
                vec![0, 5],
            ),
            (
                "two images on one node, prefer this node",
                pod(&["gcr.io/40", "gcr.io/300"], &[]),
                vec![n403002000, n25010],
                vec![7, 0],
            ),
            (
                "if exceed limit, use limit",
                pod(&["gcr.io/10", "gcr.io/4000"], &[]),
                vec![n400030, n25010],
                vec![100, 0],
            ),
            (
                "if exceed limit, use limit (with node which has no images present)",
                pod(&["gcr.io/10", "gcr.io/4000"], &[]),
                vec![n400030, n25010, none],
                vec![66, 0, 0],
            ),
            (
                "pod with multiple large images, node2 is preferred",
                pod(&["gcr.io/300", "gcr.io/600", "gcr.io/900"], &[]),
                vec![n60040900, n300600900, none],
                vec![32, 36, 0],
            ),
            (
                "pod with multiple small images",
                pod(&["gcr.io/30", "gcr.io/40"], &[]),
                vec![n203040, n400030],
                vec![1, 0],
            ),
            (
                "include InitContainers: two images spread on two nodes, prefer the larger image one",
                pod(&["gcr.io/30"], &["gcr.io/300"]),
                vec![n403002000, n203040],
                vec![6, 0],
            ),
            // podflow's: every node scores alike, known without scoring each.
            (
                "no node holds the pod's images",
                pod(&["gcr.io/77", "gcr.io/88"], &[]),
                vec![n403002000, n25010, none],
                vec![0, 0, 0],
            ),
            (
                "no node holds any image",
                pod(&["gcr.io/77"], &[]),
                vec![none, none],
                vec![0, 0],
            ),
        ];
        for (name, pod, nodes, want) in cases {
            let infos: Vec<NodeInfo> = nodes
                .iter()
                .enumerate()
                .map(|(i, images)| node(&format!("node{}", i + 1), images))
                .collect();
            // The pod's image counts read from the snapshot are those the
            // walk over every node finds.
            let walked = Spread::of(&infos);
            let read = Spread::of_pod(&pod, &Snapshot::new(&infos));
            assert_eq!(read.total_nodes, walked.total_nodes, "{name}");
            for image in containers_images(&pod) {
                let image = normalized(image);
                let (read, walked) = (read.nodes_with.get(&*image), walked.nodes_with.get(&*image));
                assert_eq!(read, walked, "{name}: {image}");
            }
            let feasible: Vec<&NodeInfo> = infos.iter().collect();
            let mut state = CycleState::default();
            let pre = ImageLocality.pre_score(&pod, &feasible, &Snapshot::new(&infos), &mut state);
            assert!(pre.is_success(), "{name}");
            let got: Vec<i64> = infos
                .iter()
                .map(|i| ImageLocality.score(&state, &pod, i))
                .collect();
            assert_eq!(got, want, "{name}");
            let uniform = uniform_agrees(&ImageLocality, &state, &pod, &feasible);
            assert_eq!(uniform, name.starts_with("no node holds"), "{name}");
            // No NormalizeScore: the raw scores stand.
            let mut scores = node_scores(&infos, |i| ImageLocality.score(&state, &pod, i));
            let before = scores.clone();
            ImageLocality.normalize(&state, &mut scores);
            assert_eq!(scores, before, "{name}");
        }
    }

    /// `TestNormalizedImageName`.
    #[test]
    fn test_normalized_image_name() {
        let digest = "sha256:4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2";
        let cases = [
            ("root", "root:latest".to_owned()),
            ("gcr.io:5000/root", "gcr.io:5000/root:latest".to_owned()),
            ("root:tag", "root:tag".to_owned()),
            (&*format!("root@{digest}"), format!("root@{digest}")),
        ];
        for (input, want) in cases {
            assert_eq!(normalized_image_name(input), want, "{input}");
        }
    }

    /// Upstream's known gap: a Docker Hub short name does not match the
    /// fully qualified name containerd reports.
    #[test]
    fn short_docker_hub_names_do_not_match() {
        let infos = vec![
            node("node1", &[(&["docker.io/library/nginx:1.27"], 500)]),
            node("node2", &[]),
        ];
        let pod = pod(&["nginx:1.27"], &[]);
        let mut state = CycleState::default();
        ImageLocality.pre_score(
            &pod,
            &infos.iter().collect::<Vec<_>>(),
            &Snapshot::new(&infos),
            &mut state,
        );
        assert_eq!(ImageLocality.score(&state, &pod, &infos[0]), 0);
        let full = self::pod(&["docker.io/library/nginx:1.27"], &[]);
        // 500 MB × 1/2 = 250 MB: 100 × (250 − 23) / (1000 − 23) = 23.
        assert_eq!(ImageLocality.score(&state, &full, &infos[0]), 23);
    }

    #[test]
    fn name_is_upstreams() {
        assert_eq!(ImageLocality.name(), "ImageLocality");
    }
}
