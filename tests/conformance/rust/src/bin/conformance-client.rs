//! The conformance client.
//!
//! `conformance-client URL` runs the client scenario named in `MCP_CONFORMANCE_SCENARIO`
//! against the suite's mock server at `URL` over Streamable HTTP. It exits 0 when the scenario's
//! job is done, and otherwise prints why on stderr and exits 1 (2 for a usage error). It gives
//! up after `MCP_CONFORMANCE_CLIENT_TIMEOUT` seconds (default 20), so that it never outlives the
//! suite's own time-out.

use std::{process::ExitCode, sync::Arc, time::Duration};

use mcpweft::transport::http::{HttpClientOptions, StreamableHttpClientTransport};
use mcpweft_conformance::client::{CONTEXT_VARIABLE, SCENARIO_VARIABLE, Scenario, oauth_client, run};

const USAGE: &str = "usage: MCP_CONFORMANCE_SCENARIO=NAME conformance-client URL";
const TIMEOUT_VARIABLE: &str = "MCP_CONFORMANCE_CLIENT_TIMEOUT";
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

fn timeout() -> Result<Duration, String> {
    match std::env::var(TIMEOUT_VARIABLE) {
        Err(_) => Ok(DEFAULT_TIMEOUT),
        Ok(value) => value
            .parse::<f64>()
            .ok()
            .and_then(|secs| Duration::try_from_secs_f64(secs).ok())
            .ok_or_else(|| format!("{TIMEOUT_VARIABLE} is not a number of seconds: {value}")),
    }
}

fn parse_args() -> Result<(Scenario, String, Duration), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url] = args.as_slice() else { return Err(USAGE.to_owned()) };
    let scenario = std::env::var(SCENARIO_VARIABLE).map_err(|_| format!("{SCENARIO_VARIABLE} is not set\n{USAGE}"))?;
    Ok((scenario.parse()?, url.clone(), timeout()?))
}

#[tokio::main]
async fn main() -> ExitCode {
    mcpweft_conformance::init_logging();
    let (scenario, url, limit) = match parse_args() {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("conformance-client: {message}");
            return ExitCode::from(2);
        }
    };
    let outcome = match tokio::time::timeout(limit, async {
        let mut options = HttpClientOptions::new();
        if let Scenario::Auth(_) = &scenario {
            let context = std::env::var(CONTEXT_VARIABLE).unwrap_or_else(|_| "{}".to_owned());
            let context = serde_json::from_str(&context).map_err(|e| format!("{CONTEXT_VARIABLE} is not JSON: {e}"))?;
            options = options.with_auth(Arc::new(oauth_client(&url, &context)?));
        }
        let transport = StreamableHttpClientTransport::with_options(&url, options)
            .map_err(|e| format!("bad server URL {url}: {e}"))?;
        run(scenario.clone(), transport).await
    })
    .await
    {
        Ok(outcome) => outcome,
        Err(_) => Err(format!("gave up after {} s", limit.as_secs_f64())),
    };
    match outcome {
        Ok(summary) => {
            println!("conformance-client: {scenario}: {summary}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("conformance-client: {scenario}: {message}");
            ExitCode::FAILURE
        }
    }
}
