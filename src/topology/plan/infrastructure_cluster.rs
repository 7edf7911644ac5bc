//! CAPI's `computeInfrastructureCluster`: the infrastructure cluster of a topology.

use serde_json::{Map, Value};

use super::context::Ctx;
use super::error::TopologyError;
use super::templates::template_to_object;
use super::types::Current;
use crate::json_pointer::At;

/// CAPI's `computeInfrastructureCluster`: the infrastructure cluster from the class's template, named by the class's
/// naming template (or the existing object's name).
pub(super) fn compute_infrastructure_cluster(
    ctx: &Ctx,
    class: &Value,
    infra_template: &Value,
    current: &Current,
) -> Result<Value, TopologyError> {
    let infra_name_template = class
        .str_at("/spec/infrastructure/naming/template")
        .or_else(|| class.str_at("/spec/infrastructureNamingStrategy/template"))
        .unwrap_or("{{ .cluster.name }}-{{ .random }}");
    let infra_name = match &current.infrastructure_cluster {
        Some(n) => n.clone(),
        None => ctx.name_from_template(infra_name_template, "infrastructure", None)?,
    };
    Ok(template_to_object(ctx, infra_template, infra_name, &Map::new(), &Map::new()))
}
