"""Language: how text is read, under every stage.

Owns: tokens, stems, sentences, quantities and negation (text.py, stemming.py), the analysed
question record (question.py, question_parts.py), the corpus's own vocabulary (glossary.py, read
from the documents' glossary.yaml), word rarity (wordfreq) and instruction-shaped text
(instructions.py). May import pipeline.ground only.
"""
