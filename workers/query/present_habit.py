"""Whether a question asks, in the simple present of a lexical verb, about what someone does
or has as a rule ("what car does Sam drive?", "where do I live?", "which gym does she go to?").

English marks the habitual / stative present of a lexical verb with do-support in questions
("does … drive", "do … live"); the asker places the question in the present without a
present-time word, as "now" or "currently" would. Left out, because they do not ask which of
two versions holds now:

* the copula and the other auxiliaries ("what is my native language?", "when's my birthday?",
  "what have I …"): identity and stable properties (generator train half, round 21: such
  questions pressed by later remarks about the same stable thing);
* the past and the future ("did", "will", "would"), and "do you …" — a question to the
  assistant ("do you remember …", "do you know …"), not about the user's world;
* a question that names its own moment (a calendar date): the caller's date gate.

Ours, after the paper's A.7.3 (for q_cur the newer of two versions leads) and A.9 (a question
for the present state); round 22 (r22-latest), docs/extraction.md."""

from __future__ import annotations

import re

#: do-support in the present ("do", "does", and their negatives), followed by a subject that is
#: not the assistant ("you"), then a lexical verb: the do-question family. The subject is one
#: to four words (a name, a pronoun, "my sister", "the kids").
_DO_PRESENT = re.compile(
    r"\b(?:do|does|don't|doesn't)\s+(?!you\b)(?:[\w'’-]+\s+){1,4}?[a-z]+\w*\b[^?]*\?",
    re.I,
)


def asks_present_habit(question: str) -> bool:
    """Whether the question is a do-support question in the simple present about someone other
    than the assistant (the module docstring)."""
    return _DO_PRESENT.search(question) is not None
