//! The workloads a drill breaks: a name, an image and a replica count from
//! the seed, and the Deployment manifest with a fault's changes in it.

use podflow_engine::rng::Rng;

use crate::yaml::indent;

/// Names of the teams' services.
const NAMES: [&str; 12] = [
    "shop",
    "cart",
    "billing",
    "search",
    "catalog",
    "checkout",
    "orders",
    "inventory",
    "payments",
    "reviews",
    "profile",
    "ledger",
];

/// Web servers of the image catalog that listen on port 80.
pub const SERVER_IMAGES: [&str; 3] = ["nginx:1.27", "nginx:1.27-alpine", "httpd:2.4"];

/// A workload of the drill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct App {
    pub name: String,
    pub namespace: String,
    pub image: String,
    pub replicas: u32,
}

impl App {
    /// `-n NS` for a command, empty in `default`.
    pub fn ns_flag(&self) -> String {
        if self.namespace == "default" {
            String::new()
        } else {
            format!(" -n {}", self.namespace)
        }
    }

    /// `NS/NAME` as goal checks name it, or `NAME` in `default`.
    pub fn reference(&self) -> String {
        if self.namespace == "default" {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }

    /// "1 ready replica", "3 ready replicas".
    pub fn ready_check(&self) -> String {
        let noun = if self.replicas == 1 {
            "replica"
        } else {
            "replicas"
        };
        format!(
            "deployment {} has {} ready {noun}",
            self.reference(),
            self.replicas
        )
    }
}

/// A fresh app: a name not in `taken`, a server image, 1–3 replicas.
pub fn pick(rng: &mut Rng, taken: &[String]) -> App {
    let free: Vec<&str> = NAMES
        .iter()
        .copied()
        .filter(|n| !taken.iter().any(|t| t == n))
        .collect();
    let name = free[usize::try_from(rng.below(free.len() as u64)).unwrap_or(0)].to_owned();
    let image = SERVER_IMAGES[usize::try_from(rng.below(3)).unwrap_or(0)].to_owned();
    let replicas = u32::try_from(rng.between(1, 3)).unwrap_or(1);
    App {
        name,
        namespace: "default".to_owned(),
        image,
        replicas,
    }
}

/// What a fault changes in the Deployment: lines added to its one
/// container (`web`) and to its Pod spec, a different image or count.
#[derive(Debug, Clone, Default)]
pub struct Shape {
    /// The image, when not the app's.
    pub image: Option<String>,
    /// YAML lines under the container, after `image:`.
    pub container: String,
    /// YAML lines under the Pod's `spec:`, before `containers:`.
    pub pod: String,
    /// The container's name (`web` when empty).
    pub container_name: String,
}

/// The app's Deployment, shaped by a fault.
pub fn deployment(app: &App, shape: &Shape) -> String {
    let image = shape.image.as_deref().unwrap_or(&app.image);
    let container = if shape.container_name.is_empty() {
        "web"
    } else {
        &shape.container_name
    };
    let namespace = if app.namespace == "default" {
        String::new()
    } else {
        format!("  namespace: {}\n", app.namespace)
    };
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n{namespace}  labels: {{app: {name}}}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    metadata:\n      labels: {{app: {name}}}\n    spec:\n{pod}      containers:\n        - name: {container}\n          image: {image}\n{extra}",
        name = app.name,
        replicas = app.replicas,
        pod = indent(&shape.pod, 6),
        extra = indent(&shape.container, 10),
    )
}

/// A `ClusterIP` Service for the app on port 80 (`targetPort` given).
pub fn service(app: &App, selector: &str, target_port: u16) -> String {
    let namespace = if app.namespace == "default" {
        String::new()
    } else {
        format!("  namespace: {}\n", app.namespace)
    };
    format!(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n{namespace}spec:\n  selector: {{app: {selector}}}\n  ports:\n    - port: 80\n      targetPort: {target_port}\n",
        name = app.name,
    )
}
