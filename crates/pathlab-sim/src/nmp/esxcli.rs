//! The esxcli commands a scenario may carry, parsed as ESXi parses them: long options
//! (`--iops=1` or `--iops 1`) and their short letters (`-I 1`). Anything else is refused with
//! the list of what is supported, so that configuration pasted from a vendor guide either works
//! as written or says why not.

/// One supported command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EsxcliCommand {
    /// `esxcli storage nmp satp rule add`
    SatpRuleAdd {
        satp: String,
        vendor: Option<String>,
        model: Option<String>,
        psp: Option<String>,
        psp_options: Option<String>,
        claim_option: Option<String>,
    },
    /// `esxcli storage nmp device set`
    DeviceSet { device: String, psp: Option<String>, default: bool },
    /// `esxcli storage nmp psp roundrobin deviceconfig set`
    RoundRobinSet {
        device: String,
        limit_type: Option<String>,
        iops: Option<u64>,
        bytes: Option<u64>,
        use_ano: Option<bool>,
        num_sampling_cycles: Option<u64>,
        latency_eval_time: Option<u64>,
    },
    /// `esxcli storage nmp psp fixed deviceconfig set`
    FixedSet { device: String, path: String },
}

/// (long name, short letter, takes a value)
type OptionSpec = (&'static str, Option<char>, bool);

const SATP_RULE_ADD: &[OptionSpec] = &[
    ("satp", Some('s'), true),
    ("vendor", Some('V'), true),
    ("model", Some('M'), true),
    ("psp", Some('P'), true),
    ("psp-option", Some('O'), true),
    ("claim-option", Some('c'), true),
    ("description", Some('e'), true),
    ("force", Some('f'), false),
];
const DEVICE_SET: &[OptionSpec] =
    &[("device", Some('d'), true), ("psp", Some('P'), true), ("default", Some('E'), false)];
const RR_SET: &[OptionSpec] = &[
    ("device", Some('d'), true),
    ("type", Some('t'), true),
    ("iops", Some('I'), true),
    ("bytes", Some('B'), true),
    ("useano", Some('U'), true),
    ("num-sampling-cycles", Some('S'), true),
    ("latency-eval-time", Some('T'), true),
    ("cfgfile", Some('g'), false),
];
const FIXED_SET: &[OptionSpec] = &[("device", Some('d'), true), ("path", Some('p'), true)];

const COMMANDS: &[(&str, &[OptionSpec])] = &[
    ("storage nmp satp rule add", SATP_RULE_ADD),
    ("storage nmp device set", DEVICE_SET),
    ("storage nmp psp roundrobin deviceconfig set", RR_SET),
    ("storage nmp psp fixed deviceconfig set", FIXED_SET),
];

/// Splits a command line into words, honouring single and double quotes.
fn words(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err("unterminated quote".into());
    }
    if in_word {
        out.push(word);
    }
    Ok(out)
}

fn supported_list(specs: &[OptionSpec]) -> String {
    specs
        .iter()
        .map(|(long, short, _)| match short {
            Some(s) => format!("-{s}/--{long}"),
            None => format!("--{long}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads the options of a command into (long name, value) pairs.
fn options(args: &[String], specs: &[OptionSpec], command: &str) -> Result<Vec<(&'static str, String)>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let (spec, inline) = if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = long.split_once('=').map_or((long, None), |(n, v)| (n, Some(v.to_string())));
            (specs.iter().find(|s| s.0 == name), value)
        } else if let Some(short) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
            let letter = short.chars().next().expect("non-empty");
            let rest = &short[letter.len_utf8()..];
            let value = (!rest.is_empty()).then(|| rest.trim_start_matches('=').to_string());
            (specs.iter().find(|s| s.1 == Some(letter)), value)
        } else {
            return Err(format!("unexpected word \"{arg}\" in `esxcli {command}`"));
        };
        let Some(&(long, _, takes_value)) = spec else {
            return Err(format!(
                "option {arg} is not supported for `esxcli {command}`; supported: {}",
                supported_list(specs)
            ));
        };
        let value = match (takes_value, inline) {
            (true, Some(v)) => v,
            (true, None) => {
                i += 1;
                args.get(i).cloned().ok_or_else(|| format!("option --{long} needs a value"))?
            }
            (false, Some(_)) => return Err(format!("option --{long} takes no value")),
            (false, None) => String::new(),
        };
        out.push((long, value));
        i += 1;
    }
    Ok(out)
}

fn number(name: &str, value: &str) -> Result<u64, String> {
    value.parse().map_err(|_| format!("--{name} needs a whole number, got \"{value}\""))
}

fn boolean(name: &str, value: &str) -> Result<bool, String> {
    match value {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        _ => Err(format!("--{name} takes true or false, got \"{value}\"")),
    }
}

/// Parses one command line (with or without the leading `esxcli`).
pub fn parse(line: &str) -> Result<EsxcliCommand, String> {
    let all = words(line)?;
    let args: Vec<String> = all.into_iter().skip_while(|w| w == "esxcli").collect();
    let split = args.iter().position(|w| w.starts_with('-')).unwrap_or(args.len());
    let namespace = args[..split].join(" ");
    let Some(&(command, specs)) = COMMANDS.iter().find(|(name, _)| *name == namespace) else {
        let known: Vec<String> = COMMANDS.iter().map(|(n, _)| format!("esxcli {n}")).collect();
        return Err(format!("`esxcli {namespace}` is not supported; supported: {}", known.join("; ")));
    };
    let opts = options(&args[split..], specs, command)?;
    let get = |name: &str| opts.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| v.clone());
    let has = |name: &str| opts.iter().any(|(n, _)| *n == name);
    let required = |name: &str| get(name).ok_or_else(|| format!("`esxcli {command}` needs --{name}"));
    match command {
        "storage nmp satp rule add" => Ok(EsxcliCommand::SatpRuleAdd {
            satp: required("satp")?,
            vendor: get("vendor"),
            model: get("model"),
            psp: get("psp"),
            psp_options: get("psp-option"),
            claim_option: get("claim-option"),
        }),
        "storage nmp device set" => {
            let (psp, default) = (get("psp"), has("default"));
            if psp.is_none() && !default {
                return Err("`esxcli storage nmp device set` needs --psp or --default".into());
            }
            Ok(EsxcliCommand::DeviceSet { device: required("device")?, psp, default })
        }
        "storage nmp psp roundrobin deviceconfig set" => Ok(EsxcliCommand::RoundRobinSet {
            device: required("device")?,
            limit_type: get("type"),
            iops: get("iops").map(|v| number("iops", &v)).transpose()?,
            bytes: get("bytes").map(|v| number("bytes", &v)).transpose()?,
            use_ano: get("useano").map(|v| boolean("useano", &v)).transpose()?,
            num_sampling_cycles: get("num-sampling-cycles").map(|v| number("num-sampling-cycles", &v)).transpose()?,
            latency_eval_time: get("latency-eval-time").map(|v| number("latency-eval-time", &v)).transpose()?,
        }),
        _ => Ok(EsxcliCommand::FixedSet { device: required("device")?, path: required("path")? }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_supported_form_parses() {
        let rule = parse(r#"esxcli storage nmp satp rule add -s "VMW_SATP_ALUA" -V PURE -M FlashArray -P VMW_PSP_RR -O "iops=1" -c tpgs_on -e "Pure rule""#).unwrap();
        assert_eq!(
            rule,
            EsxcliCommand::SatpRuleAdd {
                satp: "VMW_SATP_ALUA".into(),
                vendor: Some("PURE".into()),
                model: Some("FlashArray".into()),
                psp: Some("VMW_PSP_RR".into()),
                psp_options: Some("iops=1".into()),
                claim_option: Some("tpgs_on".into()),
            }
        );
        let rr = parse("esxcli storage nmp psp roundrobin deviceconfig set --device=naa.1 --type=latency --num-sampling-cycles 32 -T 60000 --useano=true").unwrap();
        assert_eq!(
            rr,
            EsxcliCommand::RoundRobinSet {
                device: "naa.1".into(),
                limit_type: Some("latency".into()),
                iops: None,
                bytes: None,
                use_ano: Some(true),
                num_sampling_cycles: Some(32),
                latency_eval_time: Some(60000),
            }
        );
        let rr = parse("storage nmp psp roundrobin deviceconfig set -d naa.1 -t iops -I 1").unwrap();
        assert!(matches!(rr, EsxcliCommand::RoundRobinSet { iops: Some(1), .. }));
        assert_eq!(
            parse("esxcli storage nmp device set --device naa.1 --psp VMW_PSP_MRU").unwrap(),
            EsxcliCommand::DeviceSet { device: "naa.1".into(), psp: Some("VMW_PSP_MRU".into()), default: false }
        );
        assert_eq!(
            parse("esxcli storage nmp psp fixed deviceconfig set -d naa.1 -p vmhba2:C0:T1:L4").unwrap(),
            EsxcliCommand::FixedSet { device: "naa.1".into(), path: "vmhba2:C0:T1:L4".into() }
        );
    }

    #[test]
    fn unsupported_commands_and_options_are_refused_with_what_is_supported() {
        let err = parse("esxcli storage nmp satp rule add -s VMW_SATP_ALUA --driver lpfc").unwrap_err();
        assert!(
            err.starts_with(
                "option --driver is not supported for `esxcli storage nmp satp rule add`; supported: -s/--satp"
            ),
            "{err}"
        );
        let err = parse("esxcli storage core device set --queue-full-threshold 8").unwrap_err();
        assert!(err.contains("`esxcli storage core device set` is not supported"), "{err}");
        assert!(parse("esxcli storage nmp psp roundrobin deviceconfig set --device naa.1 --iops lots")
            .unwrap_err()
            .contains("whole number"));
        assert!(parse("esxcli storage nmp psp roundrobin deviceconfig set --iops 1")
            .unwrap_err()
            .contains("needs --device"));
        assert!(parse("esxcli storage nmp device set --device naa.1").unwrap_err().contains("--psp or --default"));
        assert!(parse("esxcli storage nmp satp rule add -s 'VMW_SATP_ALUA").unwrap_err().contains("quote"));
    }
}
