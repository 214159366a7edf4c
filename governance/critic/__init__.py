"""The policy critic: where a document's text is vague, owns no one, sets no deadline, states no
consequence, contradicts itself or points to parts that are not there, sentence by sentence.

`critique_text(text, name)` critiques a document; `governance.critic.service` runs it on uploads
and on the active library for admins; `governance.critic.evaluate` measures it on data/critic.
"""
