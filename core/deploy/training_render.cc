// Training: a torchrun launch of Megatron-LM's pretrain_gpt.py with the planned layout, as a
// Slurm batch script, a Kubernetes JobSet, or the command alone.
//
// Flags, by the documentation at the version named:
//  - Megatron-LM arguments, megatron/training/arguments.py at tag core_r0.12.0,
//    https://github.com/NVIDIA/Megatron-LM/blob/core_r0.12.0/megatron/training/arguments.py
//    (--tensor-model-parallel-size, --pipeline-model-parallel-size,
//    --num-layers-per-virtual-pipeline-stage, --context-parallel-size,
//    --expert-model-parallel-size, --sequence-parallel, --micro-batch-size, --global-batch-size,
//    --seq-length, --max-position-embeddings, --train-iters, --recompute-granularity,
//    --recompute-method, --recompute-num-layers, --use-distributed-optimizer, --bf16, --fp16,
//    --fp8-format, --num-layers, --hidden-size, --ffn-hidden-size, --num-attention-heads,
//    --group-query-attention, --num-query-groups, --swiglu, --num-experts, --moe-router-topk);
//    Megatron-FSDP for ZeRO-3 / HSDP (--use-megatron-fsdp, --data-parallel-sharding-strategy,
//    --ckpt-format fsdp_dtensor, --num-distributed-optimizer-instances,
//    --outer-dp-sharding-strategy), sources where AddLayoutArgs writes them.
//  - torchrun (PyTorch 2.8 elastic launch), https://docs.pytorch.org/docs/2.8/elastic/run.html
//    (--nnodes, --nproc-per-node, --node-rank, --master-addr, --master-port).
//  - Slurm sbatch 24.11, https://slurm.schedmd.com/archive/slurm-24.11.0/sbatch.html
//    (--nodes, --ntasks-per-node, --gpus-per-node, --exclusive).
//  - JobSet jobset.x-k8s.io/v1alpha2 (v0.8), https://jobset.sigs.k8s.io/docs/overview/: pods
//    reach each other as <jobset>-<replicatedJob>-<job index>-<pod index>.<jobset>.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/deploy/deploy.h"
#include "core/deploy/kube.h"
#include "core/deploy/text.h"

namespace capplan::core::deploy {
namespace {

constexpr int kMasterPort = 29500;  // torchrun's default --master-port
constexpr char kTrainerImage[] = "nvcr.io/nvidia/pytorch:25.01-py3";
constexpr char kRocmTrainerImage[] = "rocm/megatron-lm:latest";
constexpr char kEntry[] = "pretrain_gpt.py";
constexpr int kSecondsDigits = 2;
constexpr double kPercent = 100;

// HSDP: state sharded inside groups of shard_group ranks, replicated across the groups.
bool Hybrid(const ParallelConfig& p) { return p.shard_group > 0 && p.shard_group < p.dp * p.cp; }

// ZeRO-3 and HSDP run on Megatron-FSDP, which shards over the data- and context-parallel ranks
// and composes with tensor and expert parallelism (its documentation names no pipeline
// stages with it); the replica count across shard groups must be whole.
absl::Status FsdpRenderable(const ParallelConfig& p) {
  if (p.zero_stage < 3 && Hybrid(p)) {
    return absl::FailedPreconditionError(
        "option shards ZeRO-1/2 state over a group smaller than the data-parallel ranks; Megatron-FSDP replicates "
        "across shard groups only under full sharding (ZeRO-3); pick another option (option_rank)");
  }
  if (p.zero_stage < 3) return absl::OkStatus();
  if (p.pp > 1) {
    return absl::FailedPreconditionError(
        "option shards parameters (ZeRO-3/FSDP) across pipeline stages; Megatron-FSDP, which the launch uses for "
        "sharded parameters, documents tensor, context and expert parallelism with it, not pipeline stages; pick an "
        "option with pp=1 or ZeRO-0/1/2 (option_rank)");
  }
  if (Hybrid(p) && (p.dp * p.cp) % p.shard_group != 0) {
    return absl::FailedPreconditionError("option's shard group does not divide its data-parallel ranks");
  }
  return absl::OkStatus();
}

absl::Status Renderable(const TrainingSpec& s) {
  const ParallelConfig& p = s.parallel;
  if (s.method != TrainingMethod::kFull) {
    return absl::FailedPreconditionError(
        "method: Deploy renders full training with Megatron-LM, which has no LoRA or QLoRA; fine-tune with PEFT "
        "or NeMo from the plan's figures");
  }
  if (p.offload == Offload::kOptimizerAndParameters) {
    return absl::FailedPreconditionError(absl::StrCat("option offloads ", OffloadName(p.offload),
                                                      " to host memory; Megatron-LM offloads optimizer state only; "
                                                      "pick an option without parameter offload (option_rank)"));
  }
  if (p.offload == Offload::kOptimizer && p.zero_stage >= 3) {
    return absl::FailedPreconditionError(
        "option offloads optimizer state under ZeRO-3; Megatron-LM's optimizer offload runs with its distributed "
        "optimizer, not Megatron-FSDP, in what its documentation lists; pick another option (option_rank)");
  }
  if (absl::Status fsdp = FsdpRenderable(p); !fsdp.ok()) return fsdp;
  if (s.model.num_layers < 1 || s.model.hidden_size < 1 || s.model.num_attention_heads < 1 ||
      s.model.ffn_hidden_size < 1) {
    return absl::FailedPreconditionError(
        "model: its layers, widths and heads are not known (only its parameter "
        "count); give the architecture or a Hugging Face config");
  }
  if (p.vpp > 1 && s.model.num_layers % (static_cast<int64_t>(p.pp) * p.vpp) != 0) {
    return absl::FailedPreconditionError("option's virtual pipeline stages do not divide the model's layers");
  }
  return absl::OkStatus();
}

// DeepSeek- and Qwen-MoE-style experts: each expert's width, the shared experts' total width
// and the leading dense layers as a layer pattern (Megatron-LM arguments.py, "moe" group:
// --moe-ffn-hidden-size, --moe-shared-expert-intermediate-size "num_shared_experts * ffn size
// of each", --moe-layer-freq "([0]+[1]*23)": 1 dense layer followed by 23 expert layers).
void AddMoeArgs(const ModelArchitecture& m, std::vector<std::string>* a) {
  a->insert(a->end(),
            {"--num-experts", absl::StrCat(m.num_experts), "--moe-router-topk", absl::StrCat(m.experts_per_token)});
  if (m.expert_ffn_hidden_size > 0)
    a->insert(a->end(), {"--moe-ffn-hidden-size", absl::StrCat(m.expert_ffn_hidden_size)});
  if (m.num_shared_experts > 0) {
    const int64_t each = m.shared_expert_ffn_hidden_size > 0 ? m.shared_expert_ffn_hidden_size
                         : m.expert_ffn_hidden_size > 0      ? m.expert_ffn_hidden_size
                                                             : m.ffn_hidden_size;
    a->insert(a->end(), {"--moe-shared-expert-intermediate-size", absl::StrCat(m.num_shared_experts * each)});
  }
  if (m.num_dense_layers > 0) {
    a->insert(a->end(), {"--moe-layer-freq",
                         absl::StrCat("([0]*", m.num_dense_layers, "+[1]*", m.num_layers - m.num_dense_layers, ")")});
  }
}

// Multi-head latent attention (Megatron-LM arguments.py: --multi-latent-attention,
// --q-lora-rank, --kv-lora-rank, --qk-head-dim for the non-rotary part of each head,
// --qk-pos-emb-head-dim for the rotary part, --v-head-dim).
void AddMlaArgs(const ModelArchitecture& m, std::vector<std::string>* a) {
  a->insert(a->end(), {"--multi-latent-attention", "--kv-lora-rank", absl::StrCat(m.kv_lora_rank), "--qk-head-dim",
                       absl::StrCat(m.qk_nope_head_dim), "--qk-pos-emb-head-dim", absl::StrCat(m.qk_rope_head_dim),
                       "--v-head-dim", absl::StrCat(m.v_head_dim)});
  if (m.q_lora_rank > 0) a->insert(a->end(), {"--q-lora-rank", absl::StrCat(m.q_lora_rank)});
}

void AddModelArgs(const ModelArchitecture& m, int64_t seq, std::vector<std::string>* a) {
  a->insert(a->end(), {"--num-layers", absl::StrCat(m.num_layers), "--hidden-size", absl::StrCat(m.hidden_size),
                       "--ffn-hidden-size", absl::StrCat(m.ffn_hidden_size), "--num-attention-heads",
                       absl::StrCat(m.num_attention_heads)});
  if (m.kv_lora_rank > 0) {
    AddMlaArgs(m, a);
  } else if (m.num_kv_heads > 0 && m.num_kv_heads != m.num_attention_heads) {
    a->insert(a->end(), {"--group-query-attention", "--num-query-groups", absl::StrCat(m.num_kv_heads)});
  }
  if (m.gated_mlp) {
    // The gated-MLP families the catalog holds (Llama, Mistral, Qwen, DeepSeek, Gemma) all
    // use rotary positions and RMSNorm without linear biases; Megatron-LM's defaults are
    // GPT-2's (learned positions, LayerNorm, biases).
    a->insert(a->end(),
              {"--swiglu", "--normalization", "RMSNorm", "--position-embedding-type", "rope", "--disable-bias-linear"});
  }
  if (!m.tied_embeddings) a->push_back("--untie-embeddings-and-output-weights");
  if (m.head_dim > 0 && m.kv_lora_rank == 0 && m.head_dim * m.num_attention_heads != m.hidden_size) {
    a->insert(a->end(), {"--kv-channels", absl::StrCat(m.head_dim)});  // per-head width (arguments.py)
  }
  if (m.IsMoe()) AddMoeArgs(m, a);
  a->insert(a->end(), {"--seq-length", absl::StrCat(seq), "--max-position-embeddings", absl::StrCat(seq)});
}

void AddLayoutArgs(const TrainingSpec& s, std::vector<std::string>* a) {
  const ParallelConfig& p = s.parallel;
  a->insert(a->end(),
            {"--tensor-model-parallel-size", absl::StrCat(p.tp), "--pipeline-model-parallel-size", absl::StrCat(p.pp)});
  if (p.tp > 1 && p.sequence_parallel) a->push_back("--sequence-parallel");
  if (p.vpp > 1) {
    const int64_t per_stage = s.model.num_layers / (static_cast<int64_t>(p.pp) * p.vpp);
    a->insert(a->end(), {"--num-layers-per-virtual-pipeline-stage", absl::StrCat(per_stage)});
  }
  if (p.cp > 1) a->insert(a->end(), {"--context-parallel-size", absl::StrCat(p.cp)});
  if (p.ep > 1) a->insert(a->end(), {"--expert-model-parallel-size", absl::StrCat(p.ep)});
  a->insert(a->end(), {"--micro-batch-size", absl::StrCat(p.micro_batch), "--global-batch-size",
                       absl::StrCat(s.global_batch_sequences), "--train-iters", absl::StrCat(s.train_iters)});
  if (p.recompute == Recompute::kFull) {
    a->insert(a->end(),
              {"--recompute-granularity", "full", "--recompute-method", "uniform", "--recompute-num-layers", "1"});
  } else if (p.recompute == Recompute::kSelective) {
    a->insert(a->end(), {"--recompute-granularity", "selective"});
  }
  if (p.zero_stage >= 3) {
    // Megatron-FSDP's required flags (NVIDIA/Megatron-LM
    // docs/discussions/megatron-fsdp-user-guide/megatron-fsdp-user-guide.md at commit
    // f6f94c70974acffa8141a1886fbc076a68e44190, "Required Configurations"); HSDP is the outer
    // data-parallel size (--num-distributed-optimizer-instances) replicated (no_shard), per the
    // Megatron-FSDP documentation's "Data-Parallel Sharding Strategies" table.
    a->insert(a->end(),
              {"--use-megatron-fsdp", "--data-parallel-sharding-strategy", "optim_grads_params",
               "--no-gradient-accumulation-fusion", "--use-distributed-optimizer", "--ckpt-format", "fsdp_dtensor"});
    if (Hybrid(p)) {
      a->insert(a->end(), {"--num-distributed-optimizer-instances", absl::StrCat(p.dp * p.cp / p.shard_group),
                           "--outer-dp-sharding-strategy", "no_shard"});
    }
  } else if (p.zero_stage >= 1 || p.offload == Offload::kOptimizer) {
    // The distributed optimizer shards optimizer state and reduce-scatters gradients over the
    // data-parallel ranks: ZeRO-1/2 (Megatron-LM docs, "Distributed Optimizer"). Optimizer
    // offload runs inside it (one rank: nothing sharded).
    a->push_back("--use-distributed-optimizer");
  }
  if (p.offload == Offload::kOptimizer) {
    // NVIDIA/Megatron-LM megatron/core/optimizer/cpu_offloading/README.md at commit
    // 21d3f2310a8405ef704753744de4ad32072defd8: the three flags that enable it, and the overlap
    // of the copies it recommends.
    a->insert(a->end(), {"--optimizer-cpu-offload", "--optimizer-offload-fraction", "1.0",
                         "--use-precision-aware-optimizer", "--overlap-cpu-optimizer-d2h-h2d"});
  }
  switch (s.precision) {
    case Precision::kBf16:
      a->push_back("--bf16");
      break;
    case Precision::kFp16:
      a->push_back("--fp16");
      break;
    case Precision::kFp8:
      a->insert(a->end(), {"--bf16", "--fp8-format", "hybrid"});  // Transformer Engine FP8, BF16 elsewhere
      break;
    default:
      break;  // FP32: Megatron-LM's default
  }
}

// torchrun and Megatron-LM's arguments; `rank` and `master` as the target spells them.
std::vector<std::string> Launch(const TrainingSpec& s, const std::string& rank, const std::string& master) {
  std::vector<std::string> a = {"torchrun",
                                absl::StrCat("--nnodes=", s.nodes),
                                absl::StrCat("--nproc-per-node=", s.gpus_per_node),
                                absl::StrCat("--node-rank=", rank),
                                absl::StrCat("--master-addr=", master),
                                absl::StrCat("--master-port=", kMasterPort),
                                kEntry};
  AddModelArgs(s.model, s.sequence_tokens, &a);
  AddLayoutArgs(s, &a);
  a.insert(a.end(), {"--tokenizer-type", "HuggingFaceTokenizer", "--tokenizer-model", s.model_path});
  return a;
}

std::string FiguresComment(const TrainingSpec& s) {
  const ParallelConfig& p = s.parallel;
  return absl::StrCat("# Layout: tp=", p.tp, " pp=", p.pp, " dp=", p.dp, " cp=", p.cp, " ep=", p.ep, " vpp=", p.vpp,
                      ", ZeRO-", p.zero_stage, Hybrid(p) ? absl::StrCat(" in shard groups of ", p.shard_group) : "",
                      ", recompute ", RecomputeName(p.recompute), ", micro-batch ", p.micro_batch, ", global batch ",
                      s.global_batch_sequences, " x ", s.sequence_tokens, " tokens\n# Expected: step time ",
                      Figure(s.step_seconds, kSecondsDigits), " s, MFU ", Figure(s.mfu_fraction * kPercent, 1), "%, ",
                      Figure(s.tokens_per_second, 0), " tokens/s, end to end ", Figure(s.duration_seconds / 86400, 2),
                      " days\n");
}

std::string SlurmScript(const TrainingSpec& s) {
  std::string out = absl::StrCat("#!/bin/bash\n#SBATCH --job-name=", s.name, "\n#SBATCH --nodes=", s.nodes,
                                 "\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=", s.gpus_per_node,
                                 "\n#SBATCH --exclusive\n", ProvenanceComment(s.from, "#"), FiguresComment(s));
  absl::StrAppend(&out,
                  "# Add your data and schedule: --data-path, --lr, --save/--load (Megatron-LM arguments.py).\n"
                  "set -euo pipefail\n"
                  "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
                  "export MASTER_ADDR\n"
                  "# One task per node, each with its SLURM_NODEID as the node rank; srun exports the\n"
                  "# environment, the function included, to every task.\n"
                  "launch() {\n  ",
                  ShellLine(Launch(s, "${SLURM_NODEID}", "${MASTER_ADDR}"), 4),
                  "\n}\nexport -f launch\nsrun bash -c launch\n");
  return out;
}

std::string JobSetYaml(const TrainingSpec& s) {
  Container c;
  c.name = "trainer";
  c.image = s.accelerator == Accelerator::kAmd ? kRocmTrainerImage : kTrainerImage;
  c.accelerator = s.accelerator;
  c.gpus = s.gpus_per_node;
  // JOB_COMPLETION_INDEX: the pod's index in an Indexed Job, in its environment.
  const std::string master = absl::StrCat(s.name, "-workers-0-0.", s.name);
  c.command = {"/bin/bash", "-c", ShellLine(Launch(s, "${JOB_COMPLETION_INDEX}", master))};
  const KeyValues labels = {{"app.kubernetes.io/name", s.name}, {"app.kubernetes.io/managed-by", "capplan"}};
  const KeyValues annotations = {{"capplan/gpu", s.from.gpu_name},
                                 {"capplan/step-seconds", Figure(s.step_seconds, kSecondsDigits)},
                                 {"capplan/mfu-fraction", Figure(s.mfu_fraction, 3)},
                                 {"capplan/cost-usd-per-hour", Figure(s.from.cost_usd_per_hour, 2)},
                                 {"capplan/catalog-version", absl::StrCat(s.from.catalog_version)},
                                 {"capplan/capplan-version", s.from.capplan_version}};
  return absl::StrCat(ProvenanceComment(s.from, "#"), FiguresComment(s),
                      "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n", Metadata(s.name, labels, annotations, 0),
                      "spec:\n  replicatedJobs:\n    - name: workers\n      replicas: 1\n      template:\n"
                      "        spec:\n          parallelism: ",
                      s.nodes, "\n          completions: ", s.nodes,
                      "\n          completionMode: Indexed\n          backoffLimit: 0\n          template:\n",
                      Metadata("", labels, {}, 12), "            spec:\n", PodSpec(c, s.from.gpu_name, "Never", 14));
}

absl::Status CheckSpec(const TrainingSpec& s) {
  if (s.model_path.empty()) return absl::InvalidArgumentError("model_path: empty");
  if (DnsLabel(s.name) != s.name) return absl::InvalidArgumentError("name: not a DNS-1123 label");
  const ParallelConfig& p = s.parallel;
  if (s.nodes < 1 || s.gpus_per_node < 1 || p.tp < 1 || p.pp < 1 || p.dp < 1 || p.cp < 1 || p.ep < 1 || p.vpp < 1 ||
      p.micro_batch < 1 || s.global_batch_sequences < 1 || s.train_iters < 1 || s.sequence_tokens < 1) {
    return absl::InvalidArgumentError("training spec: layout counts must be at least 1");
  }
  return Renderable(s);
}

}  // namespace

absl::StatusOr<Rendered> RenderTraining(const TrainingSpec& s, Target target) {
  if (absl::Status ok = CheckSpec(s); !ok.ok()) return ok;
  Rendered r;
  switch (target) {
    case Target::kSlurm:
      r.files.push_back({"train.sbatch", SlurmScript(s), "text/x-shellscript"});
      break;
    case Target::kKubernetes:
      r.files.push_back({"jobset.yaml", JobSetYaml(s), "application/yaml"});
      r.notes.push_back("needs the JobSet controller (https://jobset.sigs.k8s.io)");
      r.notes.push_back(absl::StrCat("nodeSelector ", GpuProductLabel(s.accelerator),
                                     " carries the catalog's GPU name; set it to your nodes' label value"));
      break;
    case Target::kCommand:
      r.files.push_back({"train.sh",
                         absl::StrCat(ProvenanceComment(s.from, "#"), FiguresComment(s),
                                      "# Run on each of the nodes with NODE_RANK 0..", s.nodes - 1,
                                      " and MASTER_ADDR the rank-0 node.\n",
                                      ShellLine(Launch(s, "${NODE_RANK}", "${MASTER_ADDR}"), 2), "\n"),
                         "text/x-shellscript"});
      break;
  }
  r.notes.push_back("add the data (--data-path), learning-rate schedule and checkpoint flags for your run");
  return r;
}

}  // namespace capplan::core::deploy
