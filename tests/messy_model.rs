//! The messy model (`common::messy`) answers what each request asks, as
//! real servers do: a strict schema in its wire form, tools as tool calls
//! (whole, or streamed in pieces by index), reasoning before the content,
//! OpenAI's 400s for a reasoning model's parameters, a missing key that a
//! repair gets back, a cut and a refusal. The behaviour tests of
//! `real_models` stand on these answers.

use crate::common;

use common::messy::{Behaviour, Messy, REASONING, REFUSAL};
use common::script::quick;
use serde_json::{Value, json};

/// Post `body` to the endpoint: the status and the body as text.
fn post(endpoint: &Messy, body: &Value) -> (u16, String) {
    // The client is built with TLS but no crypto of its own, as the
    // binary's is.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let response = reqwest::blocking::Client::new()
        .post(format!("{}/chat/completions", endpoint.base_url))
        .json(body)
        .send()
        .unwrap();
    (response.status().as_u16(), response.text().unwrap())
}

fn whole(endpoint: &Messy, body: &Value) -> Value {
    let (status, text) = post(endpoint, body);
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).unwrap()
}

/// The JSON chunks of a server-sent stream, up to `[DONE]`, which must
/// end it.
fn chunks(endpoint: &Messy, body: &Value) -> Vec<Value> {
    let (status, text) = post(endpoint, body);
    assert_eq!(status, 200, "{text}");
    let data: Vec<&str> = text
        .split("\n\n")
        .filter_map(|event| event.strip_prefix("data: "))
        .collect();
    assert_eq!(data.last(), Some(&"[DONE]"), "{text}");
    data[..data.len() - 1]
        .iter()
        .map(|chunk| serde_json::from_str(chunk).unwrap())
        .collect()
}

/// A request from `agent` of the support swarm, as the system prompt
/// names it.
fn turn_of(agent: &str) -> Value {
    json!({"model": "m", "messages": [
        {"role": "system", "content": format!("You are {agent}, one agent of a team.")},
        {"role": "user", "content": "{}"}
    ]})
}

fn swarm() -> Value {
    quick("support_swarm.json")
}

/// A swarm turn's strict schema as the contracts write it.
fn turn_schema() -> Value {
    let nullable = |kind: &str| json!({"type": [kind, "null"]});
    json!({"type": "object", "additionalProperties": false,
           "required": ["reply", "transfer_to", "message", "call", "args"],
           "properties": {"reply": nullable("string"), "transfer_to": {"anyOf": [{"type": "string", "enum": ["billing", "refunds"]}, {"type": "null"}]},
                          "message": nullable("string"), "call": nullable("string"), "args": nullable("string")}})
}

fn tools(names: &[&str]) -> Value {
    names
        .iter()
        .map(|name| {
            let (parameters, strict) = match *name {
                "transfer_to_agent" => (
                    json!({"type": "object", "additionalProperties": false, "required": ["agent", "message"],
                           "properties": {"agent": {"type": "string", "enum": ["billing"]},
                                          "message": {"type": ["string", "null"]}}}),
                    true,
                ),
                "reply" => (
                    json!({"type": "object", "additionalProperties": false, "required": ["text"],
                           "properties": {"text": {"type": "string"}}}),
                    true,
                ),
                _ => (json!({"type": "object"}), false),
            };
            json!({"type": "function", "function": {"name": name, "description": "",
                                                    "parameters": parameters, "strict": strict}})
        })
        .collect()
}

#[test]
fn a_strict_schema_is_answered_in_its_wire_form() {
    let endpoint = Messy::serve(&swarm(), Behaviour::Plain, false);
    let mut billing = turn_of("billing");
    billing["response_format"] = json!({"type": "json_schema",
        "json_schema": {"name": "turn", "strict": true, "schema": turn_schema()}});
    let answer = whole(&endpoint, &billing);
    let content: Value =
        serde_json::from_str(answer["choices"][0]["message"]["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        content,
        json!({"reply": null, "transfer_to": null, "message": null,
               "call": "invoice_lookup", "args": "{\"order_id\":\"A-1042\"}"})
    );
    // Without a strict schema, the script's own JSON; the rule moved on.
    billing.as_object_mut().unwrap().remove("response_format");
    let answer = whole(&endpoint, &billing);
    let content: Value =
        serde_json::from_str(answer["choices"][0]["message"]["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        content,
        json!({"transfer_to": "refunds", "message": "Charge ch_2 duplicates ch_1; refund ch_2."})
    );
    assert_eq!(answer["usage"]["prompt_tokens"], 120);
}

#[test]
fn tools_are_answered_with_calls_whole_and_streamed_in_pieces() {
    let endpoint = Messy::serve(&swarm(), Behaviour::Plain, true);
    let mut triage = turn_of("triage");
    triage["tools"] = tools(&["transfer_to_agent", "reply"]);
    triage["tool_choice"] = json!("required");
    let answer = whole(&endpoint, &triage);
    let choice = &answer["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    let call = &choice["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "transfer_to_agent");
    let arguments: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(
        arguments,
        json!({"agent": "billing", "message": "Possible duplicate charge on order A-1042."})
    );

    let mut billing = turn_of("billing");
    billing["tools"] = tools(&["transfer_to_agent", "reply", "invoice_lookup"]);
    billing["stream"] = json!(true);
    let chunks = chunks(&endpoint, &billing);
    let mut name = String::new();
    let mut arguments = String::new();
    for chunk in &chunks {
        for call in chunk["choices"][0]["delta"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
        {
            assert_eq!(call["index"], 0);
            name.push_str(call["function"]["name"].as_str().unwrap_or_default());
            arguments.push_str(call["function"]["arguments"].as_str().unwrap_or_default());
        }
    }
    assert!(chunks.len() > 4, "in pieces: {chunks:?}");
    assert_eq!(name, "invoice_lookup");
    assert_eq!(
        serde_json::from_str::<Value>(&arguments).unwrap(),
        json!({"order_id": "A-1042"})
    );
    let last = chunks.last().unwrap();
    assert_eq!(last["choices"], json!([]));
    assert_eq!(last["usage"]["completion_tokens"], 40);
}

#[test]
fn a_coordinators_member_calls_are_one_call_per_member() {
    let endpoint = Messy::serve(&quick("launch_coordinator.json"), Behaviour::Plain, false);
    let mut lead = turn_of("launch_lead");
    lead["tools"] = tools(&["market_analyst", "risk_analyst", "legal_reviewer", "reply"]);
    let answer = whole(&endpoint, &lead);
    let calls: Vec<(String, Value)> = answer["choices"][0]["message"]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| {
            let arguments = call["function"]["arguments"].as_str().unwrap();
            (
                call["function"]["name"].as_str().unwrap().to_string(),
                serde_json::from_str(arguments).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            (
                "market_analyst".to_string(),
                json!({"task": "Expected conversion lift and demand risk"})
            ),
            (
                "risk_analyst".to_string(),
                json!({"task": "Payment and fraud risk for the US launch"})
            ),
            (
                "legal_reviewer".to_string(),
                json!({"task": "Consent and disclosure requirements"})
            ),
        ]
    );
}

#[test]
fn a_reasoning_model_refuses_temperature_and_max_tokens_and_reasons_first() {
    let endpoint = Messy::serve(&swarm(), Behaviour::Reasoner, true);
    let mut triage = turn_of("triage");
    triage["temperature"] = json!(0);
    let (status, said) = post(&endpoint, &triage);
    assert_eq!(status, 400);
    let said: Value = serde_json::from_str(&said).unwrap();
    assert_eq!(said["error"]["param"], "temperature");
    assert_eq!(said["error"]["code"], "unsupported_value");
    triage["temperature"] = json!(1);
    triage["max_tokens"] = json!(100);
    let (status, said) = post(&endpoint, &triage);
    assert_eq!(status, 400);
    assert!(
        said.contains("Use 'max_completion_tokens' instead"),
        "{said}"
    );
    assert_eq!(endpoint.answered(), 0);

    triage.as_object_mut().unwrap().remove("max_tokens");
    triage["max_completion_tokens"] = json!(100);
    triage["stream"] = json!(true);
    let chunks = chunks(&endpoint, &triage);
    let deltas: Vec<&Value> = chunks.iter().map(|c| &c["choices"][0]["delta"]).collect();
    let reasoning: String = deltas
        .iter()
        .filter_map(|d| d["reasoning_content"].as_str())
        .collect();
    assert_eq!(reasoning, REASONING);
    let first_content = deltas
        .iter()
        .position(|d| d["content"].as_str().is_some_and(|c| !c.is_empty()))
        .unwrap();
    let last_reasoning = deltas
        .iter()
        .rposition(|d| d["reasoning_content"].is_string())
        .unwrap();
    assert!(last_reasoning < first_content, "reasoning comes first");
    let usage = &chunks.last().unwrap()["usage"];
    assert_eq!(usage["completion_tokens_details"]["reasoning_tokens"], 24);
}

#[test]
fn the_first_answer_misses_a_key_and_its_repair_gets_it_back() {
    let endpoint = Messy::serve(
        &quick("checkout_v2_launch.json"),
        Behaviour::MissingKey,
        false,
    );
    let system = "You are the risk_analyst at a launch-readiness round table.";
    let ask = json!({"model": "m", "messages": [
        {"role": "system", "content": system}, {"role": "user", "content": "{}"}]});
    let content = |answer: Value| -> Value {
        serde_json::from_str(answer["choices"][0]["message"]["content"].as_str().unwrap()).unwrap()
    };
    let broken = content(whole(&endpoint, &ask));
    assert_eq!(broken.get("stance"), None, "{broken}");
    assert_eq!(broken["confidence"], 0.78);
    let mut repair = ask.clone();
    let messages = repair["messages"].as_array_mut().unwrap();
    messages.push(json!({"role": "assistant", "content": broken.to_string()}));
    messages.push(json!({"role": "user", "content": "missing key `stance`"}));
    let repaired = content(whole(&endpoint, &repair));
    assert_eq!(repaired["stance"], "block");
    assert_eq!(repaired["confidence"], 0.78, "the same answer, whole");
    let next = content(whole(&endpoint, &ask));
    assert_eq!(next["stance"], "caution", "the next answer is whole too");
    assert_eq!(endpoint.broken(), 1);
}

#[test]
fn the_endpoint_without_response_formats_refuses_them_in_its_own_words() {
    let endpoint = Messy::serve(&swarm(), Behaviour::NoResponseFormat, false);
    let mut triage = turn_of("triage");
    triage["response_format"] = json!({"type": "json_object"});
    let (status, said) = post(&endpoint, &triage);
    assert_eq!(
        (status, said.contains("response_format")),
        (400, true),
        "{said}"
    );
    triage.as_object_mut().unwrap().remove("response_format");
    triage["tools"] = tools(&["reply"]);
    let (status, said) = post(&endpoint, &triage);
    assert_eq!((status, said.contains("tools")), (400, true), "{said}");
    let endpoint = Messy::serve(&swarm(), Behaviour::NoJsonSchema, false);
    triage.as_object_mut().unwrap().remove("tools");
    triage["response_format"] = json!({"type": "json_object"});
    assert_eq!(
        post(&endpoint, &triage).0,
        200,
        "only json_schema is refused"
    );
}

#[test]
fn a_cut_answer_is_half_its_text_and_a_refusal_has_no_content() {
    let endpoint = Messy::serve(&swarm(), Behaviour::Cut, false);
    let answer = whole(&endpoint, &turn_of("triage"));
    let choice = &answer["choices"][0];
    assert_eq!(choice["finish_reason"], "length");
    let text = choice["message"]["content"].as_str().unwrap();
    let full =
        json!({"transfer_to": "billing", "message": "Possible duplicate charge on order A-1042."})
            .to_string();
    assert_eq!(text, &full[..full.len() / 2]);

    let endpoint = Messy::serve(&swarm(), Behaviour::Refusal, true);
    let mut triage = turn_of("triage");
    triage["stream"] = json!(true);
    let refusal: String = chunks(&endpoint, &triage)
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["refusal"].as_str())
        .collect();
    assert_eq!(refusal, REFUSAL);
    let answer = whole(
        &Messy::serve(&swarm(), Behaviour::Refusal, false),
        &turn_of("triage"),
    );
    let message = &answer["choices"][0]["message"];
    assert_eq!(message["content"], Value::Null);
    assert_eq!(message["refusal"], REFUSAL);
}
