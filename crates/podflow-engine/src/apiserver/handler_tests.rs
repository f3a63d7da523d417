//! Tests of the request path: a create parked in admission, a generated
//! name that clashes, a watch from before the compaction.

use super::*;
use crate::apiserver::admission::default_chain;
use crate::apiserver::request::Credentials;
use podflow_model::kinds::kind_of;

fn admin() -> Credentials {
    Credentials::Certificate(UserInfo::new("kubernetes-admin", &["system:masters"]))
}

/// A store with the bootstrap RBAC policy and an active namespace `dev`.
fn store_with_dev() -> Store {
    let mut store = Store::new();
    let roles = crate::apiserver::bootstrap_policy::cluster_roles();
    let bindings = crate::apiserver::bootstrap_policy::cluster_role_bindings();
    let ns = Object::from_json(
        kind_of("Namespace"),
        serde_json::json!({"metadata": {"name": "dev"}, "status": {"phase": "Active"}}),
    )
    .unwrap();
    for object in roles.into_iter().chain(bindings).chain([ns]) {
        let key = key_for(object.kind(), object.namespace(), object.name());
        store.create(&key, object).unwrap();
    }
    store
}

/// `getServiceAccount` (`plugin/pkg/admission/serviceaccount/admission.go`):
/// `default` missing, the create parks in the plugin with a retry interval
/// of 100–199 ms; resumed once the account exists, it goes on from that
/// plugin (the `serviceAccountName` it set again) to its write.
#[test]
fn a_create_parked_in_admission_resumes_at_its_plugin() {
    use crate::apiserver::admission::testing::{pod, service_account};
    let mut store = store_with_dev();
    let authn = TokenAuthenticator::default();
    let chain = default_chain();
    let server = ApiServer {
        authn: &authn,
        admission: &chain,
        detail: Detail::Full,
    };
    let body = pod(serde_json::json!({
        "metadata": {"name": "x", "namespace": "dev"},
        "spec": {"containers": [{"name": "x", "image": "nginx"}]}
    }));
    let create = Request::new(
        Actor::Kubectl,
        admin(),
        Verb::Create,
        kind_of("Pod"),
        Some("dev".into()),
        "",
    )
    .body(Body::Object(Box::new(body)));
    let mut rng = Rng::new(1);
    let mut stages = SharedStages::default();
    let id = RequestId::MIN;
    let handled = server.handle(
        &mut store,
        &mut rng,
        &mut stages,
        SimTime::ZERO,
        id,
        &create,
    );
    let parked = handled.parked.expect("the create waits for default");
    assert!((100..200).contains(&parked.retry_ms), "{}", parked.retry_ms);
    assert!(handled.changes.is_empty());
    assert!(
        !handled
            .records
            .iter()
            .any(|r| matches!(r, Record::Response { .. }))
    );
    let account = service_account("dev", "default");
    store
        .create(&key_for(account.kind(), Some("dev"), "default"), account)
        .unwrap();
    let at = SimTime(parked.retry_ms);
    let handled = server.resume(&mut store, &mut rng, &mut stages, at, (id, &create), parked);
    assert_eq!(handled.response.code, 201, "{}", handled.response.message());
    let stored = handled.response.object.expect("the Pod");
    let spec = stored
        .as_pod()
        .and_then(|p| p.spec.as_ref())
        .expect("a spec");
    assert_eq!(spec.service_account_name.as_deref(), Some("default"));
    // No second authentication: the request goes on where it stopped.
    assert!(
        !handled
            .records
            .iter()
            .any(|r| matches!(r, Record::Stage(s) if s.stage == StageName::Authentication))
    );
}

/// `RetryGenerateName` (`staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store_test.go`,
/// `TestStoreCreateWithRetryNameGenerate`): a name from `generateName` that
/// is taken is generated again and the create succeeds; a name given
/// outright that is taken is the 409 it always was.
#[test]
fn a_generated_name_that_clashes_is_generated_again() {
    let mut store = store_with_dev();
    let mut rng = Rng::new(1);
    // The name the create will draw first, taken beforehand.
    let taken = format!("cm-{}", rng.clone().name_suffix(5));
    let config_map = |meta: serde_json::Value| {
        Object::from_json(
            kind_of("ConfigMap"),
            serde_json::json!({ "metadata": meta }),
        )
        .unwrap()
    };
    let existing = config_map(serde_json::json!({"name": taken, "namespace": "dev"}));
    store
        .create(&key_for(existing.kind(), Some("dev"), &taken), existing)
        .unwrap();
    let authn = TokenAuthenticator::default();
    let chain = default_chain();
    let server = ApiServer {
        authn: &authn,
        admission: &chain,
        detail: Detail::Full,
    };
    let create = |meta: serde_json::Value| {
        Request::new(
            Actor::Kubectl,
            admin(),
            Verb::Create,
            kind_of("ConfigMap"),
            Some("dev".into()),
            "",
        )
        .body(Body::Object(Box::new(config_map(meta))))
    };
    let mut stages = SharedStages::default();
    let generated = create(serde_json::json!({"generateName": "cm-", "namespace": "dev"}));
    let handled = server.handle(
        &mut store,
        &mut rng,
        &mut stages,
        SimTime::ZERO,
        RequestId::MIN,
        &generated,
    );
    assert_eq!(handled.response.code, 201, "{}", handled.response.message());
    let stored = handled.response.object.expect("the ConfigMap");
    assert!(stored.name().starts_with("cm-") && stored.name() != taken);
    let clashes = handled
        .records
        .iter()
        .filter(|r| matches!(r, Record::Stage(s) if s.stage == StageName::Persist && s.outcome == Outcome::Deny))
        .count();
    assert_eq!(clashes, 1);
    let named = create(serde_json::json!({"name": taken, "namespace": "dev"}));
    let handled = server.handle(
        &mut store,
        &mut rng,
        &mut stages,
        SimTime::ZERO,
        RequestId::MIN,
        &named,
    );
    assert_eq!(handled.response.code, 409, "{}", handled.response.message());
}

#[test]
fn a_watch_from_before_the_compaction_is_gone() {
    let mut store = Store::new();
    let roles = crate::apiserver::bootstrap_policy::cluster_roles();
    let bindings = crate::apiserver::bootstrap_policy::cluster_role_bindings();
    for object in roles.into_iter().chain(bindings) {
        let key = key_for(object.kind(), None, object.name());
        store.create(&key, object).unwrap();
    }
    let compacted = store.revision();
    store.compact(compacted);
    let authn = TokenAuthenticator::default();
    let chain = default_chain();
    let server = ApiServer {
        authn: &authn,
        admission: &chain,
        detail: Detail::Summary,
    };
    let mut watch = Request::new(
        Actor::Kubectl,
        admin(),
        Verb::Watch,
        kind_of("Pod"),
        Some("default".into()),
        "",
    );
    // The watch from `from`, as the first request of a run.
    let mut watch_from = |from: u64| {
        watch.resource_version = Some(from);
        server.handle(
            &mut store,
            &mut Rng::new(1),
            &mut SharedStages::default(),
            SimTime::ZERO,
            RequestId::MIN,
            &watch,
        )
    };
    let handled = watch_from(1);
    assert_eq!(handled.response.code, 410);
    assert_eq!(
        handled.response.message(),
        format!("too old resource version: 1 ({compacted})")
    );
    let handled = watch_from(compacted);
    assert_eq!(handled.response.code, 200);
}
