"""Command line and sglang resolution rules of the engine twin (no process launched)."""

from __future__ import annotations

import pytest

from console.core.launch.flags import pinned_catalogue
from console.sim.cli import main
from console.sim.config.args import ResolutionError, build_sim_parser, parse_argv, resolve_server_args
from console.sim.config.deployment import load_deployment

MODEL = ["--model-path", "moonshotai/Kimi-K2.6", "--tp", "4"]
DRAFT = ["--speculative-draft-model-path", "lightseekorg/kimi-k2.6-eagle3-mla"]


def resolve(*extra: str):
    argv = MODEL + list(extra)
    ns, sim = parse_argv(argv)
    return resolve_server_args(ns, sim, argv, load_deployment())


def test_unknown_flag_is_an_argparse_error(capsys):
    assert main(MODEL + ["--no-such-flag", "1"]) == 2
    assert "unrecognized arguments: --no-such-flag" in capsys.readouterr().err


def test_old_cuda_graph_flag_is_ambiguous(capsys):
    assert main(MODEL + ["--cuda-graph-max-bs", "64"]) == 2
    assert "ambiguous option" in capsys.readouterr().err


def test_missing_model_path_is_an_argparse_error():
    with pytest.raises(SystemExit) as e:
        parse_argv(["--tp", "4"])
    assert e.value.code == 2


def test_help_documents_the_twin_group(capsys):
    text = build_sim_parser().format_help()
    assert "engine twin (not sglang flags)" in text
    for flag in ("--sim-time-scale", "--sim-startup-scale", "--sim-seed", "--sim-node-seed", "--sim-domain",
                 "--sim-eos-rate", "--sim-deployment"):
        assert flag in text


def test_topk1_forces_draft_tokens_to_steps_plus_one():
    cfg = resolve("--speculative-algorithm", "eagle3", *DRAFT, "--speculative-num-steps", "6",
                  "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3")
    assert cfg.args["speculative_algorithm"] == "EAGLE3"
    assert cfg.args["speculative_num_draft_tokens"] == 7 == cfg.spec_draft_tokens
    assert ("speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when speculative_eagle_topk == 1"
            in cfg.resolution_log)


def test_eagle_auto_parameters_and_max_running_requests():
    cfg = resolve("--speculative-algorithm", "EAGLE3", *DRAFT)
    a = cfg.args
    assert (a["speculative_num_steps"], a["speculative_eagle_topk"], a["speculative_num_draft_tokens"]) == (3, 1, 4)
    assert a["max_running_requests"] == 48
    assert any(w.startswith("Max running requests is reset to 48") for w in cfg.resolution_log)
    # sglang's memory hook runs before the speculative one: the config keeps max_bs 512, the capture is clamped
    # to the 48-slot request pool (see test_sim_model for the captured list).
    assert a["cuda_graph_config"]["decode"]["max_bs"] == 512


def test_eagle_auto_depth_with_explicit_topk_is_refused():
    with pytest.raises(ResolutionError) as e:
        resolve("--speculative-algorithm", "EAGLE3", *DRAFT, "--speculative-eagle-topk", "2")
    assert e.value.exc_type == "AssertionError"


def test_nextn_is_an_alias_of_eagle_and_unknown_names_fail():
    assert resolve("--speculative-algorithm", "nextn", *DRAFT).args["speculative_algorithm"] == "EAGLE"
    with pytest.raises(ResolutionError, match="Unknown speculative algorithm name: FOO"):
        resolve("--speculative-algorithm", "foo", *DRAFT)


def test_dflash_rules():
    cfg = resolve("--speculative-algorithm", "dflash", "--speculative-draft-model-path", "z-lab/x",
                  "--speculative-num-steps", "4", "--speculative-eagle-topk", "2")
    a = cfg.args
    assert (a["speculative_num_steps"], a["speculative_eagle_topk"], a["speculative_num_draft_tokens"]) == (1, 1, 16)
    assert "speculative_num_draft_tokens is not set; defaulting to 16 for DFLASH." in cfg.resolution_log
    assert any("overriding speculative_num_steps=4 to 1" in w for w in cfg.resolution_log)
    assert resolve("--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", "z",
                   "--speculative-dflash-block-size", "8").spec_draft_tokens == 8
    with pytest.raises(ResolutionError, match="they differ"):
        resolve("--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", "z",
                "--speculative-dflash-block-size", "8", "--speculative-num-draft-tokens", "9")
    with pytest.raises(ResolutionError, match="requires setting --speculative-draft-model-path"):
        resolve("--speculative-algorithm", "DFLASH")


def test_ngram_defaults():
    cfg = resolve("--speculative-algorithm", "NGRAM")
    a = cfg.args
    assert (a["speculative_num_draft_tokens"], a["speculative_eagle_topk"], a["speculative_num_steps"]) == (12, 10, 1)


def test_resolved_args_hold_every_catalogue_field_and_sim_names():
    cfg = resolve("--served-model-name", "kimi")
    dests = {o.dest for o in pinned_catalogue().options} - {"config"}  # --config is not a ServerArgs field
    assert dests <= set(cfg.args)
    assert cfg.args["served_model_name"] == "sim:kimi"
    assert cfg.args["model_path"] == "sim:moonshotai/Kimi-K2.6"
    assert resolve("--served-model-name", "sim:kimi").args["served_model_name"] == "sim:kimi"
    assert cfg.args["max_running_requests"] is None  # no speculation: left to the scheduler
    assert cfg.args["chunked_prefill_size"] == 16384
    # sglang's automatic value on a B200: round((gpu - reserve) / gpu, 3) = 0.846, x 0.9097 for Kimi's vision tower
    assert cfg.args["mem_fraction_static"] == pytest.approx(0.76963693359375)
    assert cfg.redacted_args()["watermark_key"] == "<redacted>"
    assert "config" not in cfg.args and list(cfg.args).index("enable_dp_attention") == list(cfg.args).index(
        "enable_kv_cache_sharding") + 1  # declaration order, not parser order


def test_model_specific_resolution_is_logged_first_and_fills_unset_fields():
    cfg = resolve("--speculative-algorithm", "EAGLE3", *DRAFT)
    a = cfg.args
    assert (a["attention_backend"], a["page_size"], a["moe_runner_backend"]) == ("trtllm_mla", 64, "flashinfer_trtllm")
    assert cfg.resolution_log[0] == "Use trtllm_mla as attention backend on sm100 for DeepseekV3ForCausalLM"
    assert cfg.resolution_log[-1].startswith("Max running requests is reset to 48")
    assert resolve("--page-size", "1", "--attention-backend", "flashinfer").args["page_size"] == 1
    with pytest.raises(ResolutionError, match="speculative_eagle_topk > 1 with page_size > 1"):
        resolve("--speculative-algorithm", "EAGLE3", *DRAFT, "--speculative-num-steps", "3",
                "--speculative-eagle-topk", "2", "--speculative-num-draft-tokens", "6")
    ok = resolve("--speculative-algorithm", "EAGLE3", *DRAFT, "--speculative-num-steps", "3",
                 "--speculative-eagle-topk", "2", "--speculative-num-draft-tokens", "6", "--attention-backend",
                 "flashinfer")
    assert ok.spec_draft_tokens == 6 and ok.spec_topk == 2
    dflash = resolve("--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", "z")
    assert dflash.args["speculative_draft_attention_backend"] == "flashinfer"
    assert any("DFLASH draft worker does not support attention_backend 'trtllm_mla'" in w
               for w in dflash.resolution_log)


def test_launch_command_redacts_watermark_config():
    argv = MODEL + ["--watermark-config", "{\"key\": \"s3cret\"}"]
    ns, sim = parse_argv(argv)
    cfg = resolve_server_args(ns, sim, argv, load_deployment())
    assert "s3cret" not in cfg.launch_command and "<redacted>" in cfg.launch_command
