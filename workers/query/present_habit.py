"""Whether a question asks, in the simple present of a lexical verb, about what the asker (or
someone of theirs) does or has as a rule ("what car do I drive?", "where do we live?", "which
gym does my sister go to?").

English marks the habitual / stative present of a lexical verb with do-support in questions
("does … drive", "do … live"); the asker places the question in the present without a
present-time word, as "now" or "currently" would. Left out, because they do not ask which of
two versions holds now:

* the copula and the other auxiliaries ("what is my native language?", "when's my birthday?",
  "what have I …"): identity and stable properties (generator train half, round 21: such
  questions pressed by later remarks about the same stable thing);
* the past and the future ("did", "will", "would"), and "do you …" — a question to the
  assistant ("do you remember …", "do you know …"), not about the user's world;
* a third-person subject by name or pronoun ("what does Joanna love …?", "where does he …"):
  the `_DO_PRESENT` comment says what that cost;
* a question that names its own moment (a calendar date): the caller's date gate.

Ours, after the paper's A.7.3 (for q_cur the newer of two versions leads) and A.9 (a question
for the present state); round 22 (r22-latest), docs/extraction.md."""

from __future__ import annotations

import re

#: do-support in the present ("do", "does", and their negatives) with the asker as the subject
#: or their own ("do I", "do we", "does my sister", "does our landlord"), then a lexical verb.
#: The asker's own: a third-person subject by name ("what does Joanna love about …?") is
#: mostly a question about what was said in a conversation, not for a value that changed —
#: LoCoMo dev with any subject: recall@5 0.608 → 0.589, twenty questions' evidence from the
#: first 5 to 6th–7th, for no stale phrasing more than the first-person family removes.
_DO_PRESENT = re.compile(
    r"\b(?:do|does|don't|doesn't)\s+(?:i|we|(?:my|our)(?:\s+[\w'’-]+){1,4}?)"
    r"\s+[a-z]\w*\b[^?]*\?",
    re.I,
)


def asks_present_habit(question: str) -> bool:
    """Whether the question is a do-support question in the simple present about the asker or
    someone of theirs (the module docstring)."""
    return _DO_PRESENT.search(question) is not None


#: The same family with any subject but the assistant ("what car does Sam drive?", "where do
#: the kids go to school?"): a name or a third-person pronoun too. Read only with a stricter
#: closeness of the two versions (`newer_statements.present_habit_others_min_cosine`): such a
#: question is as often about what was said in a conversation as about a value that changed.
_DO_PRESENT_ANY = re.compile(
    r"\b(?:do|does|don't|doesn't)\s+(?!you\b)(?:[\w'’-]+\s+){1,4}?[a-z]\w*\b[^?]*\?",
    re.I,
)


def asks_others_habit(question: str) -> bool:
    """Whether the question is a do-support question in the simple present about anyone but
    the assistant (`_DO_PRESENT_ANY`): the asker's own family (`asks_present_habit`) and a
    third person's."""
    return _DO_PRESENT_ANY.search(question) is not None


#: The same family whose lexical verb is one of attitude — wanting, hoping, thinking, feeling,
#: liking, knowing ("what kind of impact does Joanna hope to have?", "what does he love
#: about …?"): the simple present of a stative verb of the mind asks the content of an
#: attitude told in a conversation, not which of two versions of a habit or value holds.
_DO_ATTITUDE = re.compile(
    r"\b(?:do|does|don't|doesn't)\s+(?!you\b)(?:[\w'’-]+\s+){1,4}?"
    r"(?:hope|want|wish|think|believe|feel|love|like|enjoy|appreciate|admire|mean|know"
    r"|expect|fear|dream|aspire|care|value)\b",
    re.I,
)


def asks_attitude(question: str) -> bool:
    """Whether the question's do-support verb is one of attitude (`_DO_ATTITUDE`)."""
    return _DO_ATTITUDE.search(question) is not None
