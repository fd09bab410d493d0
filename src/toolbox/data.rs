//! What the toolbox's example tools answer: an inventory system's and a
//! pricing API's view of a report date and region, from fixed tables, as
//! 001's workers answer from theirs. A region they do not know gets a
//! warning, as a simulated worker's missing data does.

use serde_json::{Map, Value, json};

/// The report date and region of a call's args (`region` upper-cased).
fn key(args: &Value) -> Option<(String, String)> {
    let date = args.get("report_date")?.as_str()?.to_string();
    let region = args.get("region")?.as_str()?.to_uppercase();
    Some((date, region))
}

/// The inventory system: low and out-of-stock SKUs for a region.
pub(crate) fn inventory(args: &Value) -> Value {
    let Some((date, region)) = key(args) else {
        return json!({"error": "expected the args report_date and region"});
    };
    let (low, out, eta): (&[&str], &[&str], u32) = match region.as_str() {
        "US" => (&["SKU-4411", "SKU-8820"], &["SKU-9033"], 2),
        "EU" => (&["SKU-2210"], &[], 1),
        "UK" => (&["SKU-1187", "SKU-2210"], &[], 3),
        "DE" => (&["SKU-5120"], &["SKU-7781"], 4),
        "JP" => (&[], &[], 0),
        _ => return json!({"warning": "inventory_data_missing", "region": region}),
    };
    let mut answer = Map::new();
    answer.insert("report_date".into(), date.into());
    answer.insert("region".into(), region.into());
    answer.insert("low_stock_skus".into(), json!(low));
    answer.insert("out_of_stock_skus".into(), json!(out));
    answer.insert("restock_eta_days".into(), eta.into());
    answer.insert("source".into(), "conclave toolbox inventory".into());
    Value::Object(answer)
}

/// The pricing API: the price index and promotions for a region.
pub(crate) fn pricing(args: &Value) -> Value {
    let Some((date, region)) = key(args) else {
        return json!({"error": "expected the args report_date and region"});
    };
    let (index, promos, gap): (f64, u32, f64) = match region.as_str() {
        "US" => (1.00, 3, -0.021),
        "EU" => (1.07, 2, 0.012),
        "UK" => (1.11, 1, 0.034),
        "DE" => (1.05, 2, 0.008),
        "FR" => (1.06, 4, -0.004),
        "JP" => (0.96, 0, -0.017),
        "BR" => (0.88, 5, 0.041),
        "CA" => (1.02, 1, 0.003),
        _ => return json!({"warning": "pricing_data_missing", "region": region}),
    };
    json!({"report_date": date, "region": region, "price_index": index,
           "active_promotions": promos, "competitor_gap_pct": gap,
           "source": "conclave toolbox serve"})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_by_region_and_warns_on_the_unknown() {
        let us = json!({"report_date": "2026-03-20", "region": "us"});
        assert_eq!(inventory(&us)["out_of_stock_skus"], json!(["SKU-9033"]));
        assert_eq!(pricing(&us)["price_index"], json!(1.0));
        let mars = json!({"report_date": "2026-03-20", "region": "MARS"});
        assert_eq!(inventory(&mars)["warning"], "inventory_data_missing");
        assert_eq!(pricing(&mars)["warning"], "pricing_data_missing");
        assert!(pricing(&json!({})).get("error").is_some());
    }
}
