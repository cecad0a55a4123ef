"""What the decoder families beyond GPT-2, Llama and Qwen2 put in their Hub repositories, as data for
hub_fixtures.py: special tokens in id order, tokenizer_config fields, chat templates, config.json and
generation_config.json fields. The values are those of the real repositories named in each entry's
`imitates` (config fields at the real values but for the sizes, which the fixture shrinks).

Templates marked "abridged" keep the real template's text for system, user and assistant turns and the
generation prompt, and leave out tool calls, documents and the current date; the note in the entry says so.

Nothing here imports hub_fixtures (it imports this): no cycle.
"""

# ---- chat templates -----------------------------------------------------------------------------------

# Qwen/Qwen3-0.6B, abridged (tool calls and reasoning_content of earlier turns left out); enable_thinking
# as the real one: False writes an empty think block after the generation prompt.
QWEN3_TEMPLATE = r"""{%- if messages[0].role == 'system' %}
    {{- '<|im_start|>system\n' + messages[0].content + '<|im_end|>\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant") %}
        {%- if not (message.role == "system" and loop.first) %}
            {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
    {%- if enable_thinking is defined and enable_thinking is false %}
        {{- '<think>\n\n</think>\n\n' }}
    {%- endif %}
{%- endif %}"""

# mistralai/Mistral-7B-Instruct-v0.3 (its first template: user and assistant turns only, no system role).
MISTRAL_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}"
    "{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}"
    "{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}"
)

# microsoft/Phi-3-mini-4k-instruct
PHI3_TEMPLATE = (
    "{% for message in messages %}{% if message['role'] == 'system' %}"
    "{{'<|system|>\n' + message['content'] + '<|end|>\n'}}{% elif message['role'] == 'user' %}"
    "{{'<|user|>\n' + message['content'] + '<|end|>\n'}}{% elif message['role'] == 'assistant' %}"
    "{{'<|assistant|>\n' + message['content'] + '<|end|>\n'}}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% else %}{{ eos_token }}{% endif %}"
)

# google/gemma-1.1-2b-it and google/gemma-2-2b-it: no system role (chatPrompt.ts folds it into the user turn).
GEMMA_TEMPLATE = (
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
    "{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}"
    "{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{'<start_of_turn>model\n'}}{% endif %}"
)

# google/gemma-3-1b-it, abridged (images left out): a system turn becomes the first user turn's prefix;
# content may be a list of parts.
GEMMA3_TEMPLATE = """{{ bos_token }}
{%- if messages[0]['role'] == 'system' -%}
    {%- if messages[0]['content'] is string -%}
        {%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}
    {%- else -%}
        {%- set first_user_prefix = messages[0]['content'][0]['text'] + '\n\n' -%}
    {%- endif -%}
    {%- set loop_messages = messages[1:] -%}
{%- else -%}
    {%- set first_user_prefix = "" -%}
    {%- set loop_messages = messages -%}
{%- endif -%}
{%- for message in loop_messages -%}
    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}
        {{ raise_exception("Conversation roles must alternate user/assistant/user/assistant/...") }}
    {%- endif -%}
    {%- if (message['role'] == 'assistant') -%}
        {%- set role = "model" -%}
    {%- else -%}
        {%- set role = message['role'] -%}
    {%- endif -%}
    {{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else "") }}
    {%- if message['content'] is string -%}
        {{ message['content'] | trim }}
    {%- elif message['content'] is iterable -%}
        {%- for item in message['content'] -%}
            {%- if item['type'] == 'text' -%}
                {{ item['text'] | trim }}
            {%- endif -%}
        {%- endfor -%}
    {%- else -%}
        {{ raise_exception("Invalid content type") }}
    {%- endif -%}
    {{ '<end_of_turn>\n' }}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{'<start_of_turn>model\n'}}
{%- endif -%}
"""

# HuggingFaceTB/SmolLM3-3B, abridged: the metadata block without today's date and the long reasoning
# instructions; /think (the default) or /no_think, and the empty think block the latter writes.
SMOLLM3_TEMPLATE = r"""{%- set reasoning_mode = "/no_think" if (enable_thinking is defined and enable_thinking is false) else "/think" -%}
{%- if messages[0].role == "system" -%}
    {%- set custom_instructions = messages[0].content -%}
    {%- set loop_messages = messages[1:] -%}
{%- else -%}
    {%- set custom_instructions = "You are a helpful AI assistant named SmolLM, trained by Hugging Face." -%}
    {%- set loop_messages = messages -%}
{%- endif -%}
{{- "<|im_start|>system\n## Metadata\n\nKnowledge Cutoff Date: June 2025\nReasoning Mode: " + reasoning_mode + "\n\n## Custom Instructions\n\n" + custom_instructions + "\n\n<|im_end|>\n" -}}
{%- for message in loop_messages -%}
    {{- "<|im_start|>" + message.role + "\n" + message.content + "<|im_end|>\n" -}}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{- "<|im_start|>assistant\n" -}}
    {%- if reasoning_mode == "/no_think" -%}
        {{- "<think>\n\n</think>\n" -}}
    {%- endif -%}
{%- endif -%}"""

# allenai/OLMo-2-0425-1B-Instruct
OLMO2_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'system' %}"
    "{{ '<|system|>\n' + message['content'] + '\n' }}{% elif message['role'] == 'user' %}"
    "{{ '<|user|>\n' + message['content'] + '\n' }}{% elif message['role'] == 'assistant' %}"
    "{% if not loop.last %}{{ '<|assistant|>\n'  + message['content'] + eos_token + '\n' }}"
    "{% else %}{{ '<|assistant|>\n'  + message['content'] + eos_token }}{% endif %}{% endif %}"
    "{% if loop.last and add_generation_prompt %}{{ '<|assistant|>\n' }}{% endif %}{% endfor %}"
)

# ibm-granite/granite-3.0-2b-instruct, abridged (its tools and documents turns left out).
GRANITE_TEMPLATE = (
    "{%- for message in messages %}{%- if message['role'] == 'system' %}"
    "{{- '<|start_of_role|>system<|end_of_role|>' + message['content'] + '<|end_of_text|>\n' }}"
    "{%- elif message['role'] == 'user' %}{{- '<|start_of_role|>user<|end_of_role|>' + message['content'] + '<|end_of_text|>\n' }}"
    "{%- elif message['role'] == 'assistant' %}"
    "{{- '<|start_of_role|>assistant<|end_of_role|>'  + message['content'] + '<|end_of_text|>\n' }}{%- endif %}"
    "{%- if loop.last and add_generation_prompt %}{{- '<|start_of_role|>assistant<|end_of_role|>' }}{%- endif %}"
    "{%- endfor %}"
)

# ---- what each template renders for hub_fixtures.CHAT (one user turn, the generation prompt) ---------

USER = "Write one sentence about the river."
CHAT_PROMPTS = {
    "qwen3": f"<|im_start|>user\n{USER}<|im_end|>\n<|im_start|>assistant\n",
    "mistral": f"<s>[INST] {USER} [/INST]",
    "phi3": f"<|user|>\n{USER}<|end|>\n<|assistant|>\n",
    "gemma": f"<bos><start_of_turn>user\n{USER}<end_of_turn>\n<start_of_turn>model\n",
    "gemma2": f"<bos><start_of_turn>user\n{USER}<end_of_turn>\n<start_of_turn>model\n",
    "gemma3_text": f"<bos><start_of_turn>user\n{USER}<end_of_turn>\n<start_of_turn>model\n",
    "smollm3": "<|im_start|>system\n## Metadata\n\nKnowledge Cutoff Date: June 2025\nReasoning Mode: /think\n\n"
    "## Custom Instructions\n\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face.\n\n<|im_end|>\n"
    f"<|im_start|>user\n{USER}<|im_end|>\n<|im_start|>assistant\n",
    "olmo2": f"<|endoftext|><|user|>\n{USER}\n<|assistant|>\n",
    "granite": f"<|start_of_role|>user<|end_of_role|>{USER}<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>",
}

# ---- special tokens, in id order ------------------------------------------------------------------------

# Qwen2.5's added tokens in id order (151643 onwards); the last eight are not "special"
QWEN_SPECIALS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
    "<tool_call>",
    "</tool_call>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|fim_pad|>",
    "<|repo_name|>",
    "<|file_sep|>",
]
QWEN_NOT_SPECIAL = set(QWEN_SPECIALS[14:])

# Qwen3's added tokens: Qwen2.5's 22, then tool responses and thinking (151665-151668); from <tool_call>
# on they are not "special" (they may appear in a reply's text).
QWEN3_SPECIALS = QWEN_SPECIALS + ["<tool_response>", "</tool_response>", "<think>", "</think>"]
QWEN3_NOT_SPECIAL = set(QWEN3_SPECIALS[14:])

# Mistral v0.3's first ten ids (then [control_8] ... [control_768], left out here, then the byte tokens).
MISTRAL_SPECIALS = [
    "<unk>",
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[TOOL_CALLS]",
    "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
]
LLAMA_SP_SPECIALS = ["<unk>", "<s>", "</s>"]
# Phi-3's added tokens after Llama 2's 32000 (32000 onwards).
PHI3_ADDED = [
    "<|endoftext|>",
    "<|assistant|>",
    "<|placeholder1|>",
    "<|placeholder2|>",
    "<|placeholder3|>",
    "<|placeholder4|>",
    "<|system|>",
    "<|end|>",
    "<|placeholder5|>",
    "<|placeholder6|>",
    "<|user|>",
]
# Gemma 1 and 2: 0..107; Gemma 3 has no <2mass>, so its turn markers are 105 and 106.
GEMMA_SPECIALS = (
    ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>", "<2mass>", "[@BOS@]"]
    + [f"<unused{i}>" for i in range(99)]
    + ["<start_of_turn>", "<end_of_turn>"]
)
GEMMA3_SPECIALS = (
    ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>", "[@BOS@]"]
    + [f"<unused{i}>" for i in range(99)]
    + ["<start_of_turn>", "<end_of_turn>"]
)
# Llama 3's first special tokens as SmolLM3 names them (128000 onwards; 128011/128012 are its chat markers).
SMOLLM3_SPECIALS = [
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<think>",
    "</think>",
    "<|finetune_right_pad_id|>",
    "<|reserved_special_token_2|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|python_tag|>",
    "<|im_start|>",
    "<|im_end|>",
]
SMOLLM3_NOT_SPECIAL = {"<think>", "</think>"}
# OLMo 2's (cl100k's) special tokens after the merges (100257 onwards), abridged to the ones it uses.
OLMO2_SPECIALS = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>", "<|pad|>"]
# Granite 3's StarCoder tokens at 0..18, and its chat markers after the merges (49152 onwards).
GRANITE_LEAD = [
    "<|end_of_text|>",
    "<fim_prefix>",
    "<fim_middle>",
    "<fim_suffix>",
    "<fim_pad>",
    "<filename>",
    "<gh_stars>",
    "<issue_start>",
    "<issue_comment>",
    "<issue_closed>",
    "<jupyter_start>",
    "<jupyter_text>",
    "<jupyter_code>",
    "<jupyter_output>",
    "<empty_output>",
    "<commit_before>",
    "<commit_msg>",
    "<commit_after>",
    "<reponame>",
]
GRANITE_TRAIL = ["<|start_of_role|>", "<|end_of_role|>", "<|tool_call|>"]


# ---- config.json and generation_config.json ------------------------------------------------------------


def qwen3_config(vocab, ids, hidden=16, layers=2, heads=2, kv=1, head_dim=16, inter=32):
    return {
        "architectures": ["Qwen3ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": ids["<|endoftext|>"],
        "eos_token_id": ids["<|im_end|>"],
        "head_dim": head_dim,
        "hidden_act": "silu",
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": inter,
        "max_position_embeddings": 40960,
        "max_window_layers": 28,
        "model_type": "qwen3",
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "num_key_value_heads": kv,
        "rms_norm_eps": 1e-06,
        "rope_scaling": None,
        "rope_theta": 1000000,
        "sliding_window": None,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "use_sliding_window": False,
        "vocab_size": vocab,
    }


def qwen3_generation(ids):
    return {
        "bos_token_id": ids["<|endoftext|>"],
        "do_sample": True,
        "eos_token_id": [ids["<|im_end|>"], ids["<|endoftext|>"]],
        "pad_token_id": ids["<|endoftext|>"],
        "temperature": 0.6,
        "top_k": 20,
        "top_p": 0.95,
        "transformers_version": "4.51.0",
    }


def mistral_config(vocab, hidden=16, layers=2, heads=2, kv=1, inter=32):
    return {
        "architectures": ["MistralForCausalLM"],
        "attention_dropout": 0.0,
        "bos_token_id": 1,
        "eos_token_id": 2,
        "hidden_act": "silu",
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": inter,
        "max_position_embeddings": 32768,
        "model_type": "mistral",
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "num_key_value_heads": kv,
        "rms_norm_eps": 1e-05,
        "rope_theta": 1000000.0,
        "sliding_window": None,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "vocab_size": vocab,
    }


def phi3_config(vocab, ids, hidden=16, layers=2, heads=2, kv=2, inter=32):
    # Phi-3 mini: as many key/value heads as heads (no grouping), an embedding table padded past the tokenizer
    return {
        "architectures": ["Phi3ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": 1,
        "embd_pdrop": 0.0,
        "eos_token_id": ids["<|endoftext|>"],
        "hidden_act": "silu",
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": inter,
        "max_position_embeddings": 4096,
        "model_type": "phi3",
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "num_key_value_heads": kv,
        "original_max_position_embeddings": 4096,
        "pad_token_id": ids["<|endoftext|>"],
        "resid_pdrop": 0.0,
        "rms_norm_eps": 1e-05,
        "rope_scaling": None,
        "rope_theta": 10000.0,
        "sliding_window": 2047,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "vocab_size": vocab,
    }


def phi3_generation(ids):
    return {
        "_from_model_config": True,
        "bos_token_id": 1,
        "eos_token_id": [ids["<|endoftext|>"], ids["<|assistant|>"], ids["<|end|>"]],
        "pad_token_id": ids["<|endoftext|>"],
    }


def gemma_config(vocab, hidden=16, layers=2, heads=2, kv=1, head_dim=16, inter=32):
    # gemma-7b sets head_dim (256) apart from hidden / heads (3072 / 16): so does the fixture
    return {
        "architectures": ["GemmaForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": 2,
        "eos_token_id": 1,
        "head_dim": head_dim,
        "hidden_act": "gelu_pytorch_tanh",
        "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": inter,
        "max_position_embeddings": 8192,
        "model_type": "gemma",
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "num_key_value_heads": kv,
        "pad_token_id": 0,
        "rms_norm_eps": 1e-06,
        "rope_scaling": None,
        "rope_theta": 10000.0,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "vocab_size": vocab,
    }


def gemma2_config(vocab, ids, hidden=16, layers=2, heads=4, kv=2, head_dim=8, inter=32):
    # gemma-2-2b: head_dim 256 against hidden / heads = 2304 / 8 = 288
    return {
        "architectures": ["Gemma2ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "attn_logit_softcapping": 50.0,
        "bos_token_id": 2,
        "cache_implementation": "hybrid",
        "eos_token_id": [1, ids["<end_of_turn>"]],
        "final_logit_softcapping": 30.0,
        "head_dim": head_dim,
        "hidden_act": "gelu_pytorch_tanh",
        "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": inter,
        "max_position_embeddings": 8192,
        "model_type": "gemma2",
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "num_key_value_heads": kv,
        "pad_token_id": 0,
        "query_pre_attn_scalar": 256,
        "rms_norm_eps": 1e-06,
        "rope_theta": 10000.0,
        "sliding_window": 4096,
        "torch_dtype": "float32",
        "use_cache": True,
        "vocab_size": vocab,
    }


def gemma3_config(vocab, ids, hidden=16, layers=2, heads=4, kv=1, head_dim=16, inter=32):
    # gemma-3-1b: 4 heads of 256 on one key/value head, hidden 1152 (so hidden / heads = 288)
    return {
        "architectures": ["Gemma3ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "attn_logit_softcapping": None,
        "bos_token_id": 2,
        "cache_implementation": "hybrid",
        "eos_token_id": [1, ids["<end_of_turn>"]],
        "final_logit_softcapping": None,
        "head_dim": head_dim,
        "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": inter,
        "max_position_embeddings": 32768,
        "model_type": "gemma3_text",
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "num_key_value_heads": kv,
        "pad_token_id": 0,
        "query_pre_attn_scalar": 256,
        "rms_norm_eps": 1e-06,
        "rope_local_base_freq": 10000,
        "rope_scaling": None,
        "rope_theta": 1000000,
        "sliding_window": 512,
        "sliding_window_pattern": 6,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "vocab_size": vocab,
    }


def gemma_generation(eos):
    return {"bos_token_id": 2, "eos_token_id": eos, "pad_token_id": 0}


def gemma3_generation(ids):
    return {
        "bos_token_id": 2,
        "cache_implementation": "hybrid",
        "do_sample": True,
        "eos_token_id": [1, ids["<end_of_turn>"]],
        "pad_token_id": 0,
        "top_k": 64,
        "top_p": 0.95,
    }


def smollm3_config(vocab, ids, hidden=16, layers=4, heads=2, kv=1, inter=32):
    # every fourth layer without rotary embeddings (NoPE): no_rope_layers[i] == 0
    return {
        "architectures": ["SmolLM3ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": None,
        "eos_token_id": ids["<|im_end|>"],
        "hidden_act": "silu",
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": inter,
        "max_position_embeddings": 65536,
        "mlp_bias": False,
        "model_type": "smollm3",
        "no_rope_layer_interval": 4,
        "no_rope_layers": [0 if (i + 1) % 4 == 0 else 1 for i in range(layers)],
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "num_key_value_heads": kv,
        "pad_token_id": ids["<|finetune_right_pad_id|>"],
        "rms_norm_eps": 1e-06,
        "rope_scaling": None,
        "rope_theta": 5000000.0,
        "sliding_window": None,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "use_sliding_window": False,
        "vocab_size": vocab,
    }


def smollm3_generation(ids):
    return {
        "_from_model_config": True,
        "bos_token_id": ids["<|begin_of_text|>"],
        "eos_token_id": ids["<|im_end|>"],
        "pad_token_id": ids["<|finetune_right_pad_id|>"],
    }


def olmo2_config(vocab, ids, hidden=16, layers=2, heads=2, kv=2, inter=32):
    return {
        "architectures": ["Olmo2ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": ids["<|endoftext|>"],
        "eos_token_id": ids["<|endoftext|>"],
        "hidden_act": "silu",
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": inter,
        "max_position_embeddings": 4096,
        "model_type": "olmo2",
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "num_key_value_heads": kv,
        "pad_token_id": ids["<|pad|>"],
        "rms_norm_eps": 1e-06,
        "rope_scaling": None,
        "rope_theta": 500000,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "vocab_size": vocab,
    }


def olmo2_generation(ids):
    eot = ids["<|endoftext|>"]
    return {"bos_token_id": eot, "eos_token_id": eot, "pad_token_id": ids["<|pad|>"]}


def granite_config(vocab, hidden=32, layers=2, heads=4, kv=2, inter=32):
    # Granite's multipliers scale the embeddings, residuals, attention and logits inside the graph
    return {
        "architectures": ["GraniteForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.1,
        "attention_multiplier": 0.015625,
        "bos_token_id": 0,
        "embedding_multiplier": 12.0,
        "eos_token_id": 0,
        "hidden_act": "silu",
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": inter,
        "logits_scaling": 8.0,
        "max_position_embeddings": 4096,
        "mlp_bias": False,
        "model_type": "granite",
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "num_key_value_heads": kv,
        "pad_token_id": 0,
        "residual_multiplier": 0.22,
        "rms_norm_eps": 1e-05,
        "rope_scaling": None,
        "rope_theta": 10000.0,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "vocab_size": vocab,
    }
