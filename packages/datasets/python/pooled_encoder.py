"""The cross-encoder Citeflow trains: any Hugging Face encoder, mean pooling over the pair's tokens, a linear head.

Why not the architecture's own sequence-classification head (BERT's first-token pooler): all-MiniLM-L6-v2 was
trained with mean pooling, and its first-token vector barely moves with the input. Measured on this machine, 60
steps on 800 sentence / flipped-sentence pairs: the first-token head stayed at chance (test accuracy 0.39 at lr
2e-5, 0.51 at 5e-5), the mean-pooled head reached 0.78 at 2e-5.

The classifier is built in the architecture's own PreTrainedModel family (BertPreTrainedModel,
RobertaPreTrainedModel, DebertaV2PreTrainedModel, …), so that `from_pretrained` reads any checkpoint of it — a
plain encoder, a sequence classifier, a sentence-transformers folder — and initialises the head as that family
does. For BERT it is exactly the model Citeflow has always trained (BertModel without its pooler, then the head),
so the shipped recipe gives the same weights. Saved with `"citeflow_pooling": "mean"` and the family's
`…ForSequenceClassification` as its architecture; the ONNX export (onnx_export.py) carries the pooling in its
graph, so transformers.js reads `logits` as from any sequence classifier.
"""
from __future__ import annotations

import inspect
import json
from pathlib import Path

from train_errors import InputError

ENCODERS = "BERT, RoBERTa, XLM-R, DeBERTa-v2/v3, ModernBERT, ELECTRA …"


def read_config(base: Path) -> dict:
    """The base folder's config.json, checked: it exists, it is JSON, it names a model type transformers knows."""
    from transformers import CONFIG_MAPPING

    f = base / "config.json"
    if not base.is_dir() or not f.is_file():
        raise InputError(f"--base {base}: not a model folder (needs config.json and safetensors weights, as a Hugging Face model folder has)")
    try:
        cfg = json.loads(f.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"--base {base}: config.json is not JSON ({e})") from None
    if not isinstance(cfg, dict) or not isinstance(cfg.get("model_type"), str):
        raise InputError(f"--base {base}: config.json names no model_type")
    if cfg["model_type"] not in CONFIG_MAPPING:
        raise InputError(f"--base {base}: model_type {cfg['model_type']!r} is not one transformers knows")
    return cfg


def encoder_parts(config):
    """(the encoder class, its PreTrainedModel family, the family's attribute for the encoder, the encoder's extra init arguments)
    for this config; InputError when the architecture has no sequence-classification head (not a text encoder)."""
    from transformers import MODEL_MAPPING, PreTrainedModel
    from transformers.models.auto.modeling_auto import MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES

    kind = config.model_type
    if kind not in MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES or type(config) not in MODEL_MAPPING:
        raise InputError(f"model_type {kind!r} has no sequence-classification head in transformers (AutoModelForSequenceClassification): give a text encoder ({ENCODERS})")
    encoder = MODEL_MAPPING[type(config)]
    family = next(c for c in encoder.__mro__[1:] if issubclass(c, PreTrainedModel) and c is not PreTrainedModel)
    init = {"add_pooling_layer": False} if "add_pooling_layer" in inspect.signature(encoder.__init__).parameters else {}
    return encoder, family, family.base_model_prefix, init


def uses_token_types(config) -> bool:
    """Whether the encoder reads segment ids: BERT's two segments do; RoBERTa's one type, and DeBERTa's none, do not (a
    tokenizer's second-segment ids would index past RoBERTa's single type embedding)."""
    return int(getattr(config, "type_vocab_size", 0) or 0) > 1


def classifier_class(config):
    """The mean-pooled classifier for this config's architecture."""
    from torch import nn
    from transformers.models.auto.modeling_auto import MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES
    from transformers.modeling_outputs import SequenceClassifierOutput

    encoder_cls, family, prefix, init = encoder_parts(config)
    head_name = MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES[config.model_type]

    class MeanPooledClassifier(family):
        # The loss is the batch's mean: transformers' Trainer must not rescale it as a sum over tokens (it would double each
        # step's gradient under two-process data parallelism).
        accepts_loss_kwargs = False

        def __init__(self, config):
            super().__init__(config)
            config.citeflow_pooling = "mean"
            config.architectures = [head_name]
            self.num_labels = config.num_labels
            setattr(self, prefix, encoder_cls(config, **init))
            dropout = getattr(config, "classifier_dropout", None)
            self.dropout = nn.Dropout(dropout if dropout is not None else getattr(config, "hidden_dropout_prob", 0.1))
            self.classifier = nn.Linear(config.hidden_size, config.num_labels)
            self.post_init()

        def forward(self, input_ids=None, attention_mask=None, token_type_ids=None, labels=None, **kwargs):
            extra = {} if token_type_ids is None else {"token_type_ids": token_type_ids}  # given only where uses_token_types
            hidden = getattr(self, prefix)(input_ids=input_ids, attention_mask=attention_mask, **extra).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
            logits = self.classifier(self.dropout(pooled))
            loss = None
            if labels is not None:
                if self.num_labels == 1:
                    loss = nn.functional.binary_cross_entropy_with_logits(logits.squeeze(-1), labels.to(logits.dtype))
                else:
                    loss = nn.functional.cross_entropy(logits.float(), labels.long())
            return SequenceClassifierOutput(loss=loss, logits=logits)

    MeanPooledClassifier.__name__ = f"MeanPooled{family.__name__.removesuffix('PreTrainedModel')}Classifier"
    return MeanPooledClassifier


def check_encoder(base: Path):
    """The base folder's config, once it is known to be a text encoder this module can put a head on."""
    from transformers import AutoConfig

    read_config(base)
    config = AutoConfig.from_pretrained(str(base))
    try:
        encoder_parts(config)
    except InputError as e:
        raise InputError(f"--base {base}: {e}") from None
    return config


def load_classifier(base: Path, labels: dict):
    """The mean-pooled classifier for the base folder (check_encoder's first), its encoder's weights loaded, the head new."""
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(str(base), **labels)
    return classifier_class(config).from_pretrained(str(base), config=config, ignore_mismatched_sizes=True)
