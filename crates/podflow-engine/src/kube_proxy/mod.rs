//! kube-proxy on one node (`cmd/kube-proxy`, iptables mode): its Service and
//! `EndpointSlice` informers (`pkg/proxy/config/config.go`, `ServiceConfig`,
//! `EndpointSliceConfig`) keep a cache; a change that alters some Service
//! port's rules (the change trackers of `pkg/proxy/servicechangetracker.go`
//! and `endpointschangetracker.go` drop changes that leave a port as it was)
//! asks for a sync, which the `BoundedFrequencyRunner` holds to one per
//! `minSyncPeriod` (1 s, `iptables.minSyncPeriod`'s default); the sync
//! (`syncProxyRules`) writes the rules [`rules::plan`] works out, recorded
//! as one `sync-proxy-rules` stage. The node's containers reach Services
//! through the rules last written ([`KubeProxy::table`]).

pub mod rules;

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::discovery::v1::EndpointSlice;

use self::rules::{Endpoint, ServicePort, Table};
use crate::clock::SimTime;
use crate::component::{Cx, KubeProxyTimer};
use crate::controllers::endpointslice_plan::SERVICE_NAME_LABEL;
use crate::store::{EventType, WatchEvent};
use crate::trace::{Actor, NodeName, Outcome, Stage, StageName};
use podflow_model::{Object, Shared};

/// `iptables.minSyncPeriod`'s default: at most one sync a second.
pub const MIN_SYNC_PERIOD_MS: u64 = 1000;

/// The kinds kube-proxy watches.
pub const WATCHED: [&str; 2] = ["Service", "EndpointSlice"];

/// kube-proxy's state on one node.
#[derive(Debug, Clone)]
pub struct KubeProxy {
    node: NodeName,
    /// Its Service informer's cache, by `NS/NAME` (the store's objects,
    /// shared: a thousand nodes' proxies hold one copy of each).
    services: BTreeMap<String, Shared<Service>>,
    /// Its `EndpointSlice` informer's cache, by `NS/NAME` of the slice.
    slices: BTreeMap<String, Shared<EndpointSlice>>,
    /// The rules the last sync wrote.
    table: Arc<Table>,
    /// When the last sync ran.
    last_sync: Option<SimTime>,
    /// Whether a sync is waiting for its timer.
    pending: bool,
}

impl KubeProxy {
    /// kube-proxy for `node`, with nothing synced yet.
    pub fn new(node: &str) -> KubeProxy {
        KubeProxy {
            node: NodeName::from(node),
            services: BTreeMap::new(),
            slices: BTreeMap::new(),
            table: Arc::default(),
            last_sync: None,
            pending: false,
        }
    }

    /// The rules last written: what the node's packets go through.
    pub fn table(&self) -> Arc<Table> {
        Arc::clone(&self.table)
    }

    fn me(&self) -> Actor {
        Actor::KubeProxy(self.node.clone())
    }

    /// What its informers listed before the story started; the rules
    /// written from them (the cluster was already running).
    pub fn initial_list(&mut self, objects: &[Arc<Object>]) {
        for object in objects {
            self.observe(object, false);
        }
        self.table = Arc::new(rules::plan(&self.service_ports(None)));
    }

    fn observe(&mut self, object: &Arc<Object>, deleted: bool) {
        let key = crate::controllers::informer::key_of(object);
        match &**object {
            Object::Service(_) if deleted => {
                self.services.remove(&key);
            }
            Object::EndpointSlice(_) if deleted => {
                self.slices.remove(&key);
            }
            Object::Service(_) => {
                self.services.extend(Shared::of(object).map(|s| (key, s)));
            }
            Object::EndpointSlice(_) => {
                self.slices.extend(Shared::of(object).map(|s| (key, s)));
            }
            _ => {}
        }
    }

    /// A Service or `EndpointSlice` event: the caches follow, and a sync is
    /// asked for when some Service port's rules would change.
    pub fn on_watch(&mut self, event: &WatchEvent, cx: &mut Cx<'_>) {
        self.observe(&event.object, event.event_type == EventType::Deleted);
        if self.pending || !self.changes(&event.object) {
            return;
        }
        self.pending = true;
        let due = self
            .last_sync
            .map_or(cx.now, |last| last.plus(MIN_SYNC_PERIOD_MS))
            .max(cx.now);
        cx.after(
            due.as_millis().saturating_sub(cx.now.as_millis()),
            KubeProxyTimer::SyncProxyRules,
        );
    }

    /// Whether the rules of the Service `object` is (or whose slice it is)
    /// would differ from those written: upstream's change trackers keep a
    /// change only when the Service port's info or endpoints differ.
    fn changes(&self, object: &Object) -> bool {
        let key = match object {
            Object::Service(_) => crate::controllers::informer::key_of(object),
            Object::EndpointSlice(slice) => {
                let Some(service) = slice
                    .metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get(SERVICE_NAME_LABEL))
                else {
                    return false;
                };
                let ns = slice.metadata.namespace.as_deref().unwrap_or_default();
                format!("{ns}/{service}")
            }
            _ => return false,
        };
        let wanted = rules::plan(&self.service_ports(Some(&key)));
        let prefix = format!("{key}:");
        let written = self
            .table
            .ports
            .iter()
            .filter(|(name, _)| **name == key || name.starts_with(&prefix));
        !written.eq(wanted.ports.iter())
    }

    /// The sync's timer.
    pub fn on_timer(&mut self, timer: KubeProxyTimer, cx: &mut Cx<'_>) {
        match timer {
            KubeProxyTimer::SyncProxyRules => self.sync_proxy_rules(cx),
        }
    }

    /// `syncProxyRules`: writes the rules for every Service port, and says
    /// which ports changed.
    fn sync_proxy_rules(&mut self, cx: &mut Cx<'_>) {
        self.pending = false;
        self.last_sync = Some(cx.now);
        let table = rules::plan(&self.service_ports(None));
        let changed = table.changed_since(&self.table);
        let rejected = table
            .ports
            .values()
            .filter(|p| p.endpoints.is_empty())
            .count();
        let mut detail = format!(
            "{}, {}, {rejected} rejected",
            count(table.ports.len(), "service port"),
            count(table.endpoint_count(), "endpoint")
        );
        if changed.is_empty() {
            detail.push_str("; nothing changed");
        } else {
            let described: Vec<String> = changed
                .iter()
                .map(|name| match table.ports.get(name) {
                    None => format!("{name} removed"),
                    Some(p) if p.endpoints.is_empty() => format!("{name} has no endpoints"),
                    Some(p) => format!("{name} → {}", count(p.endpoints.len(), "endpoint")),
                })
                .collect();
            detail.push_str("; changed: ");
            detail.push_str(&described.join(", "));
        }
        let outcome = if changed.is_empty() {
            Outcome::InSync
        } else {
            Outcome::Write
        };
        let mut stage =
            Stage::new(self.me(), StageName::SyncProxyRules, outcome, detail).node(&*self.node);
        stage.extra_mut().rules = Some(table.lines());
        stage.extra_mut().size = Some(table.ports.len() as u64);
        cx.stage(stage);
        self.table = Arc::new(table);
    }

    /// Every Service port with a `ClusterIP` (of the Service `only`, when
    /// given) and its endpoints from the Service's slices (`ServicePortName`,
    /// the `EndpointSlice` cache's `endpointInfoByServicePort`).
    fn service_ports(&self, only: Option<&str>) -> Vec<ServicePort> {
        let mut by_service: BTreeMap<String, Vec<&EndpointSlice>> = BTreeMap::new();
        for slice in self.slices.values() {
            let Some(service) = slice
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get(SERVICE_NAME_LABEL))
            else {
                continue;
            };
            let ns = slice.metadata.namespace.as_deref().unwrap_or_default();
            let key = format!("{ns}/{service}");
            if only.is_none_or(|only| only == key) {
                by_service.entry(key).or_default().push(&**slice);
            }
        }
        let mut ports = Vec::new();
        let services = self
            .services
            .iter()
            .filter(|(key, _)| only.is_none_or(|only| *key == only));
        for (key, service) in services {
            let Some(spec) = service.spec.as_ref() else {
                continue;
            };
            // `IsServiceIPSet`: a headless Service (or one without an address) is not proxied.
            let cluster_ip = match spec.cluster_ip.as_deref() {
                Some(ip) if !ip.is_empty() && ip != "None" => ip,
                _ => continue,
            };
            if spec.type_.as_deref() == Some("ExternalName") {
                continue;
            }
            let slices = by_service.get(key).map(Vec::as_slice).unwrap_or_default();
            for port in spec.ports.iter().flatten() {
                let port_name = port.name.clone().unwrap_or_default();
                let protocol = port.protocol.clone().unwrap_or_else(|| "TCP".into());
                let name = if port_name.is_empty() {
                    key.clone()
                } else {
                    format!("{key}:{port_name}")
                };
                ports.push(ServicePort {
                    name,
                    cluster_ip: cluster_ip.to_owned(),
                    port: port.port,
                    endpoints: endpoints_for(slices, &port_name, &protocol),
                    protocol,
                });
            }
        }
        ports
    }
}

/// `1 endpoint`, `2 endpoints`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The endpoints of the slices' port named `port_name` with `protocol`.
fn endpoints_for(slices: &[&EndpointSlice], port_name: &str, protocol: &str) -> Vec<Endpoint> {
    let mut out = Vec::new();
    for slice in slices {
        let Some(number) = slice.ports.iter().flatten().find_map(|p| {
            let same_name = p.name.as_deref().unwrap_or_default() == port_name;
            let same_protocol = p.protocol.as_deref().unwrap_or("TCP") == protocol;
            (same_name && same_protocol).then_some(p.port).flatten()
        }) else {
            continue;
        };
        for endpoint in slice.endpoints.iter().flatten() {
            let Some(ip) = endpoint.addresses.first() else {
                continue;
            };
            let conditions = endpoint.conditions.clone().unwrap_or_default();
            // Upstream reads a missing `ready` as true, `serving` as `ready`.
            let ready = conditions.ready.unwrap_or(true);
            out.push(Endpoint {
                ip: ip.clone(),
                port: number,
                ready,
                serving: conditions.serving.unwrap_or(ready),
                terminating: conditions.terminating.unwrap_or(false),
            });
        }
    }
    out
}
