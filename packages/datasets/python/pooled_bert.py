"""The cross-encoder Citeflow trains: a BERT encoder, mean pooling over the pair's tokens, a linear head.

Why not BertForSequenceClassification's first-token pooler: all-MiniLM-L6-v2 was trained with mean
pooling, and its first-token vector barely moves with the input. Measured on this machine, 60 steps
on 800 sentence / flipped-sentence pairs: the first-token head stayed at chance (test accuracy
0.39 at lr 2e-5, 0.51 at 5e-5), the mean-pooled head reached 0.78 at 2e-5.

Saved as a BertForSequenceClassification checkpoint (bert.* and classifier.* weights) with
`"citeflow_pooling": "mean"` in its config; bert_to_onnx.py writes the same pooling into the ONNX
graph, so transformers.js reads `logits` as from any sequence classifier.
"""
import torch
from torch import nn
from transformers import BertModel, BertPreTrainedModel
from transformers.modeling_outputs import SequenceClassifierOutput


class MeanPooledBertClassifier(BertPreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        config.citeflow_pooling = "mean"
        config.architectures = ["BertForSequenceClassification"]
        self.num_labels = config.num_labels
        self.bert = BertModel(config, add_pooling_layer=False)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.post_init()

    def forward(self, input_ids=None, attention_mask=None, token_type_ids=None, labels=None, **kwargs):
        hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
        logits = self.classifier(self.dropout(pooled))
        loss = None
        if labels is not None:
            if self.num_labels == 1:
                loss = nn.functional.binary_cross_entropy_with_logits(logits.squeeze(-1), labels.to(logits.dtype))
            else:
                loss = nn.functional.cross_entropy(logits, labels.long())
        return SequenceClassifierOutput(loss=loss, logits=logits)
