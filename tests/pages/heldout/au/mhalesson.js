// Held-out page: written up from a published worked example of multi-head attention (a lesson module of a
// course site kept in a GitHub repository); its printed numbers are the published ones, the prose and code are ours.
export default {
  id: 'multi-head-attention-in-transformers',
  minutes: 20,
  hook: 'A single attention map per token gives the layer just one view of what matters. Could one layer keep a dozen views at once, for the same price?',
  summary: 'Multi-head attention runs a few smaller attention computations ("heads") next to each other. Every head owns its query, key and value projections and so can pick up its own pattern, such as "attend to the word before" or "attend to the subject". The heads are concatenated and blended by one more matrix, W_o. Since each head works in d_model / h dimensions, the whole thing costs about as much as one wide head.',
  sections: [
    {
      id: 'what-is-multi-head-attention',
      title: 'What is multi-head attention?',
      blocks: [
        { type: 'p', text: '**Multi-head attention (MHA)** is the flavour of attention found in every Transformer layer. Rather than one set of attention weights per token, it produces **h** sets side by side, one for each **head**. A head is a full, narrower copy of the attention mechanism with learned projections of its own. At the end the heads are joined and blended into one output.' },
        { type: 'formula', expr: 'MultiHead(X) = Concat(head₁, …, headₕ) · W_o,   headᵢ = Attention(X·W_qⁱ, X·W_kⁱ, X·W_vⁱ)', where: [
          ['h', 'how many heads (e.g. 8, 12, 32)'],
          ['W_qⁱ, W_kⁱ, W_vⁱ', 'the projections of head i, each d_model × d_head'],
          ['d_head', 'the width of one head, normally d_model / h'],
          ['W_o', 'the output projection, d_model × d_model, which blends the heads'],
        ], caption: 'Within each head: Attention(Q, K, V) = softmax(Q·Kᵀ / √d_head) · V.' },
        { type: 'callout', tone: 'analogy', title: 'Picture a team of reviewers', text: 'One reviewer reads a draft with one concern in mind. Eight reviewers can split the work: grammar, who "she" is, the dates, the thread of the argument. Each jots down brief notes and a lead reviewer (W_o) merges them into a single verdict. The heads are those reviewers.' },
      ],
    },
    {
      id: 'self-attention-recap',
      title: 'Self-attention in brief',
      blocks: [
        { type: 'p', text: 'In **self-attention** each token of a sequence attends to the tokens of that same sequence. From the token matrix X (tokens × d_model) come the queries Q = X·W_q, keys K = X·W_k and values V = X·W_v. The scores Q·Kᵀ are divided by √dₖ, a softmax turns every row into weights, and the output of a token is the weighted mean of the value vectors.' },
        { type: 'p', text: 'The catch: one softmax per token yields **one** weighting. Softmax likes to pile weight on a handful of tokens, so a lone head can usually follow only one or two relations strongly. When "it" needs both *the noun it stands for* and *the verb that governs it*, a single view smears the two together.' },
      ],
    },
    {
      id: 'why-multiple-heads',
      title: 'Why have several heads?',
      blocks: [
        { type: 'p', text: 'A sentence carries many relations at once. In "The animal did not cross the street because it was too tired" we would like "it" → "animal", "tired" → "it", "cross" → "street", and each word → its neighbour. One attention pattern has to trade these off; several heads do not, since each can specialize.' },
        { type: 'p', text: 'When people inspect trained models they do find heads with recognisable habits: heads that look one token back, heads that tie pronouns to nouns, heads that sit on punctuation or on the first token, and "induction heads" that help repeat earlier patterns. Not all heads are so neat, and many can be pruned at test time with little harm, so heads overlap. Still, having several lets a model keep different relations in parallel.' },
        { type: 'viz', name: 'multi-head', caption: 'Flip between heads with different learned habits (previous token, subject tracking, punctuation): one sentence, very different weight maps.' },
        { type: 'check', question: 'If every head is plain attention with other weights, why do heads not all converge on the same pattern?', answer: 'They begin from different random weights, and W_o pays off when they add useful, non-overlapping information to the loss. Nothing enforces diversity, which is why some heads turn out redundant.' },
      ],
    },
    {
      id: 'step-by-step',
      title: 'How multi-head attention works, step by step',
      blocks: [
        { type: 'steps', title: 'Input to output', items: [
          { title: 'Project', text: 'Form Q = X·W_q, K = X·W_k, V = X·W_v with full d_model × d_model matrices, which is the same as h separate d_model × d_head projections packed into one multiply.' },
          { title: 'Split into heads', text: 'Reshape Q, K and V from (T × d_model) to (h × T × d_head): the first d_head columns go to head 1, the next ones to head 2, and so on.' },
          { title: 'Attend per head', text: 'Every head computes softmax(QᵢKᵢᵀ / √d_head)·Vᵢ on its own, giving (T × d_head). All heads run as one batched operation.' },
          { title: 'Concatenate', text: 'Lay the h head outputs side by side to get a (T × d_model) matrix again.' },
          { title: 'Mix with W_o', text: 'Multiply by W_o (d_model × d_model) so the heads can combine. The result goes on to the residual connection and the feed-forward network.' },
        ] },
        { type: 'flow', title: 'Shapes through one multi-head attention layer (T tokens, d_model = 512, h = 8)', nodes: [
          { label: 'X (T×512)', detail: 'The token vectors entering the layer.' },
          { label: 'Q, K, V (T×512)', detail: 'Three projections, one matrix multiply each.' },
          { label: '8 heads (8×T×64)', detail: 'Reshape: every head gets 64 dimensions of Q, K and V.' },
          { label: 'Per-head attention', detail: 'Eight T×T weight maps, each scaled by √64 = 8, then applied to V.' },
          { label: 'Concat (T×512)', detail: 'The eight 64-wide outputs side by side.' },
          { label: 'W_o (T×512)', detail: 'The last mixing projection; same shape as the input.' },
        ] },
      ],
    },
    {
      id: 'cost-and-shapes',
      title: 'No more costly than one big head',
      blocks: [
        { type: 'p', text: 'Does 8 heads mean 8 times the cost? No. Each head lives in a **narrower** space, d_head = d_model / h; with d_model = 512 and 8 heads that is 64 dimensions per head. The four projection matrices stay d_model × d_model, so there are 4·d_model² parameters, exactly as for one 512-wide head with an output projection, and the score arithmetic is split among the heads too.' },
        { type: 'table', caption: 'Published settings of some well-known models', head: ['Model', 'd_model', 'Heads h', 'd_head'], rows: [
          ['Original Transformer (base, 2017)', '512', '8', '64'],
          ['GPT-2 small', '768', '12', '64'],
          ['Llama 2 7B', '4,096', '32', '128'],
        ] },
        { type: 'p', text: 'What **does** grow with the head count is the number of attention maps: h maps of T × T per layer. For long sequences that costs memory, one reason later designs such as grouped-query attention let heads share keys and values (see a later lesson).' },
        { type: 'check', question: 'A model has d_model = 1024 and 16 heads. What is d_head, and by what are the scores divided?', answer: 'd_head = 1024 / 16 = 64, and the scores are divided by √64 = 8: the per-head width sets the scale, not d_model.' },
      ],
    },
    {
      id: 'walk-through',
      title: 'A small worked run',
      blocks: [
        { type: 'p', text: 'Here is a tiny multi-head layer: 4 tokens, d_model = 8, 2 heads of width 4. The weights are random (untrained), so the patterns carry no linguistic meaning; what to watch is the shapes, and that the two heads give **different** weight maps for one and the same input.' },
        { type: 'code', lang: 'python', title: 'multi_head.py', code: `import numpy as np
np.set_printoptions(precision=2, suppress=True)
rng = np.random.default_rng(7)

T, d_model, h = 4, 8, 2            # tokens, model width, heads
d_head = d_model // h              # width of one head: 4
X = rng.standard_normal((T, d_model))
W_q, W_k, W_v, W_o = (rng.standard_normal((d_model, d_model)) * 0.5 for _ in range(4))

def softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)

def to_heads(M):                   # (T, d_model) -> (h, T, d_head)
    return M.reshape(T, h, d_head).transpose(1, 0, 2)

Q, K, V = to_heads(X @ W_q), to_heads(X @ W_k), to_heads(X @ W_v)
print("Q per head shape:", Q.shape)

att = softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d_head))   # (h, T, T)
for i in range(h):
    print(f"head {i} attention weights:\\n", att[i])

merged = (att @ V).transpose(1, 0, 2).reshape(T, d_model)   # heads side by side
out = merged @ W_o                                           # blend the heads
print("concat shape:", merged.shape, "-> output shape:", out.shape)
print("params in W_q,W_k,W_v,W_o:", 4 * d_model * d_model)`,
          output: `Q per head shape: (2, 4, 4)
head 0 attention weights:
 [[0.05 0.04 0.37 0.53]
 [0.11 0.14 0.39 0.36]
 [0.01 0.01 0.51 0.47]
 [0.12 0.05 0.66 0.17]]
head 1 attention weights:
 [[0.17 0.18 0.29 0.36]
 [0.11 0.09 0.68 0.12]
 [0.09 0.18 0.04 0.69]
 [0.22 0.2  0.37 0.21]]
concat shape: (4, 8) -> output shape: (4, 8)
params in W_q,W_k,W_v,W_o: 256`,
          walkthrough: [
            { lines: [5, 8], note: 'Small sizes: 4 tokens, width 8, 2 heads of 4 dims. Four random 8 × 8 matrices play the part of learned weights.' },
            { lines: [15, 18], note: 'to_heads turns (4, 8) into (2, 4, 4): two heads, each with 4 tokens of 4 dims. Columns 0–3 belong to head 0, columns 4–7 to head 1.' },
            { lines: [20, 22], note: 'Batched attention: one (4 × 4) weight map per head, scaled by √d_head = 2. The two maps differ although the input is the same.' },
            { lines: [24, 25], note: 'Each head returns (4 × 4); transposing and reshaping sets them side by side as (4 × 8), and W_o mixes across heads.' },
            { lines: [26, 27], note: 'The output has the input\'s shape, so layers can be stacked. Parameters: 4 × 8 × 8 = 256, as for a single 8-wide head.' },
          ] },
        { type: 'p', text: 'Compare the first rows: head 0 gives 53% of token 1\'s attention to token 4, while head 1 spreads it more evenly. Even untrained, different projections give different views; training turns such accidents into useful specialities.' },
        { type: 'matrix', title: 'Illustrative trained patterns: a previous-token head on "The cat sat down"', rows: ['The', 'cat', 'sat', 'down'], cols: ['The', 'cat', 'sat', 'down'], values: [[1, null, null, null], [0.85, 0.15, null, null], [0.05, 0.85, 0.1, null], [0.03, 0.04, 0.85, 0.08]], format: 'pct', caption: 'Made-up numbers (not taken from a real model), causal mask. Every token puts most of its weight on the word right before it, a habit seen in real heads.' },
      ],
    },
    {
      id: 'compare-single-vs-multi',
      title: 'One head or many',
      blocks: [
        { type: 'compare', title: 'One wide head against several narrow heads (same d_model)', options: [
          { name: 'Single head', summary: 'One attention map per token across the full width.', pros: ['Easiest to write', 'Every score uses all dimensions'], cons: ['One pattern per token per layer', 'Distinct relations get blended'], bestFor: 'Teaching and toy models' },
          { name: 'Multi-head', summary: 'h attention maps per token, each over d_model / h dims.', pros: ['Several relations at once', 'Same parameters, similar compute', 'Heads can specialize'], cons: ['More maps to hold for long sequences', 'Too many tiny heads may be too narrow'], bestFor: 'Any production Transformer' },
        ], rows: [
          ['Attention maps per layer', '1', 'h'],
          ['Width per map', 'd_model', 'd_model / h'],
          ['Projection parameters', '4·d_model²', '4·d_model²'],
        ], verdict: 'Several views of the sequence for the price of one: that is why multi-head attention became standard.' },
      ],
    },
    {
      id: 'where-used-and-advantages',
      title: 'Where it is used and why it helps',
      blocks: [
        { type: 'p', text: 'Every Transformer family uses multi-head attention:' },
        { type: 'list', items: [
          '**Decoder-only LLMs** (GPT, Llama, Claude, Mistral): multi-head *causal* self-attention in each layer.',
          '**Encoders** (BERT, embedding models): multi-head self-attention in both directions.',
          '**Encoder-decoder models** (T5, translation models, Whisper): multi-head self-attention and multi-head *cross*-attention (next lesson).',
          '**Vision Transformers**: image patches stand in for tokens and heads pick up spatial relations.',
        ] },
        { type: 'p', text: '**In short:** several relations captured at once, no more parameters than one head of the same width, one batched GPU operation, and a degree of interpretability since single heads can be looked at.' },
        { type: 'callout', tone: 'warn', title: 'Pitfalls', text: 'Reshaping in the wrong order (splitting tokens rather than features) quietly scrambles the heads; always split the feature axis. Dividing by √d_model instead of √d_head. Dropping W_o, so heads cannot combine. Over-reading one head: roles are fuzzy and vary between models, so "head 5 does coreference" describes a tendency, not a rule.' },
        { type: 'callout', tone: 'tip', title: 'Next', text: 'Each head keeps its own keys and values during generation, so multi-head attention is memory-hungry at inference. Multi-query and grouped-query attention keep many query heads but share key/value heads; they come up in the efficiency module.' },
      ],
    },
  ],
  quiz: [
    { q: 'What does each head of multi-head attention own?', options: ['Its own query, key and value projections, so it learns its own pattern', 'Its own copy of the sentence translated into another language', 'Its own output vocabulary, predicting different next tokens', 'Its own feed-forward network running right after its attention'], answer: 0, explain: 'Every head has separate W_q, W_k, W_v slices and computes its own weight map; the feed-forward network after attention is shared by all heads.' },
    { q: 'A layer has d_model = 768 and 12 heads. How wide is each head?', options: ['768', '12', '9,216', '64'], answer: 3, explain: '768 / 12 = 64: each head attends in 64 dimensions and the 12 outputs are joined back to 768.' },
    { q: 'Against one 512-wide attention head, how many projection parameters does an 8-head layer with d_model = 512 have?', options: ['8 times more, one full set per head', 'About the same: 4·512² in both cases', 'One eighth, since each head is narrower', 'Twice as many because of the concatenation'], answer: 1, explain: 'The Q, K, V and output matrices are 512 × 512 in both cases; multi-head attention only divides the columns among heads.' },
    { q: 'A colleague leaves out W_o and passes the concatenated heads straight on. What gets weaker?', options: ['The causal mask, so tokens can see ahead', 'The scaling of the scores before softmax', 'Mixing the heads\' outputs into combined features', 'Running the heads in parallel as one batch'], answer: 2, explain: 'W_o is the learned blend across heads; without it each head\'s output stays in its own slice.' },
    { q: 'Which statement about heads is a misconception?', options: ['Different heads can learn different patterns such as previous-token or pronoun links', 'Every trained head has one clean job, and removing any head breaks the model', 'Heads run in parallel as one batched computation', 'Each head scales its scores by the square root of its own width, √d_head'], answer: 1, explain: 'Head roles are fuzzy and overlap; many heads can be pruned at test time with small losses. The other statements hold.' },
  ],
  takeaways: [
    'Multi-head attention runs h narrower attention computations in parallel, each with its own projections.',
    'A head works in d_head = d_model / h dimensions, so parameters and compute stay about those of one head.',
    'Heads can specialize; their outputs are concatenated and blended by W_o.',
    'Shapes: (T × d_model) → split to (h × T × d_head) → attend → concat back to (T × d_model).',
    'Head roles are tendencies, not rules, and many heads partly overlap.',
  ],
  terms: [
    { term: 'Head', def: 'One independent attention computation with its own query, key and value projections.' },
    { term: 'd_head', def: 'The width of a head, usually d_model over the number of heads.' },
    { term: 'Concatenation', def: 'Setting the head outputs side by side to rebuild a d_model-wide vector.' },
    { term: 'Output projection (W_o)', def: 'The learned matrix that blends the concatenated heads.' },
    { term: 'Self-attention', def: 'Attention whose queries, keys and values all come from one sequence.' },
    { term: 'Induction head', def: 'A head type found in trained models that helps continue patterns seen earlier in the context.' },
  ],
};
