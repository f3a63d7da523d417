//! The reviews a client asks of the API server about itself, answered and
//! never stored: `SelfSubjectAccessReview` (`kubectl auth can-i`), which asks
//! the authorizers about the attributes in its spec
//! (`pkg/registry/authorization/selfsubjectaccessreview/rest.go`), and
//! `SelfSubjectReview` (`kubectl auth whoami`), which returns the user the
//! request authenticated as (`pkg/registry/authentication/selfsubjectreview/rest.go`).

use k8s_openapi::api::authentication::v1::{SelfSubjectReviewStatus, UserInfo as ReviewUser};
use k8s_openapi::api::authorization::v1::SubjectAccessReviewStatus;

use super::ClusterView;
use super::authz::{self, Attributes};
use super::request::UserInfo;
use crate::trace::{Actor, Outcome, Stage, StageName};
use podflow_model::Object;

/// Whether objects of `kind` are reviews, which are answered, not stored.
pub fn is_review_kind(kind: &podflow_model::Kind) -> bool {
    matches!(kind.kind, "SelfSubjectReview" | "SelfSubjectAccessReview")
}

fn text(value: Option<&String>) -> &str {
    value.map_or("", String::as_str)
}

/// The review with its status filled in, and the stage that decided it.
pub fn answer(user: &UserInfo, mut object: Object, cluster: &dyn ClusterView) -> (Object, Stage) {
    let stage = match &mut object {
        Object::SelfSubjectReview(review) => {
            review.status = Some(SelfSubjectReviewStatus {
                user_info: Some(ReviewUser {
                    username: Some(user.name.clone()),
                    groups: Some(user.groups.clone()),
                    ..ReviewUser::default()
                }),
            });
            Stage::new(
                Actor::ApiServer,
                StageName::Authentication,
                Outcome::Allow,
                format!("SelfSubjectReview: the request came from {}", user.name),
            )
        }
        Object::SelfSubjectAccessReview(review) => {
            let spec = &review.spec;
            let resource = spec.resource_attributes.as_ref();
            let non_resource = spec.non_resource_attributes.as_ref();
            let verb = text(
                resource
                    .and_then(|r| r.verb.as_ref())
                    .or_else(|| non_resource.and_then(|n| n.verb.as_ref())),
            );
            let namespace = text(resource.and_then(|r| r.namespace.as_ref()));
            let attrs = Attributes {
                user,
                verb,
                api_group: text(resource.and_then(|r| r.group.as_ref())),
                resource: text(resource.and_then(|r| r.resource.as_ref())),
                subresource: resource
                    .and_then(|r| r.subresource.as_deref())
                    .filter(|s| !s.is_empty()),
                namespace: Some(namespace).filter(|ns| !ns.is_empty()),
                name: text(resource.and_then(|r| r.name.as_ref())),
                field_selector: None,
                non_resource_path: non_resource.and_then(|n| n.path.as_deref()),
            };
            let decision = authz::authorize(&attrs, cluster);
            let asked = match attrs.non_resource_path {
                Some(path) => format!("{verb} {path}"),
                None => format!("{verb} {}", attrs.resource),
            };
            review.status = Some(SubjectAccessReviewStatus {
                allowed: decision.allowed,
                reason: Some(decision.reason.clone()).filter(|r| !r.is_empty()),
                ..SubjectAccessReviewStatus::default()
            });
            Stage::new(
                Actor::ApiServer,
                StageName::Authorization,
                if decision.allowed {
                    Outcome::Allow
                } else {
                    Outcome::Deny
                },
                format!(
                    "SelfSubjectAccessReview: may {} {asked}? {}",
                    user.name,
                    if decision.allowed { "yes" } else { "no" }
                ),
            )
            .plugin(decision.authorizer)
        }
        _ => Stage::new(
            Actor::ApiServer,
            StageName::Authorization,
            Outcome::Skip,
            "not a review",
        ),
    };
    (object, stage)
}
