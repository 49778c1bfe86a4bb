//! The small safe layer over llama.cpp's C API (llama-cpp-sys-2's bindings) that the worker
//! uses: the backend, a model, a context, a batch and a sampler chain (grammar, DRY, greedy),
//! the chat template, tokenizing and detokenizing. Every `unsafe` block of the crate is here,
//! each with the reason it holds.
//!
//! Why not llama-cpp-2 (the wrapper this replaced): it turns on llama-cpp-sys-2's default
//! `common` feature whatever its own features say, and that builds llama.cpp's `common`
//! library (chat parsing, JSON schemas, argument parsing, …) that keel never calls — about a
//! fifth of a cold release build of keel on a 2-core machine. The calls below are the ones
//! llama-cpp-2 0.1.160 made without its `common` feature, in the same order with the same
//! arguments, so the worker's answers are the same bytes.
//!
//! Ownership follows llama.cpp's: a [`Model`] borrows the [`Backend`]; a [`Context`] and a
//! [`Sampler`] borrow the model (the grammar and DRY samplers keep a pointer to its
//! vocabulary); a [`Batch`] owns its arrays. Each frees what it owns on drop, once.

use std::ffi::{CStr, CString, c_char};
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};

use llama_cpp_sys_2 as sys;

/// A token id of the model's vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token(sys::llama_token);

/// Whether llama.cpp's backend is initialized: [`Backend::init`] succeeds once per process.
static BACKEND: AtomicBool = AtomicBool::new(false);

/// llama.cpp's backend, initialized; at most one at a time in the process.
pub struct Backend(());

impl Backend {
    /// Initializes llama.cpp (`llama_backend_init`) and silences its log, which would
    /// otherwise go to stderr.
    pub fn init() -> Result<Backend, String> {
        if BACKEND
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            return Err("the llama.cpp backend is already initialized".to_owned());
        }
        // SAFETY: called once (the flag above) before any other llama.cpp call; it only sets
        // up ggml's global state.
        unsafe { sys::llama_backend_init() };
        // SAFETY: `void_log` is a plain function that ignores its arguments, valid for the
        // whole process; the user data is unused, so null is fine.
        unsafe { sys::llama_log_set(Some(void_log), std::ptr::null_mut()) };
        Ok(Backend(()))
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        // SAFETY: every model, context and sampler borrows the backend, so none outlives this.
        unsafe { sys::llama_backend_free() };
        BACKEND.store(false, Ordering::SeqCst);
    }
}

/// llama.cpp's log callback: drops every line.
unsafe extern "C" fn void_log(
    _level: sys::ggml_log_level,
    _text: *const c_char,
    _user_data: *mut std::ffi::c_void,
) {
}

/// A model loaded from a GGUF file, with llama.cpp's default model parameters.
pub struct Model<'b> {
    raw: NonNull<sys::llama_model>,
    vocab: NonNull<sys::llama_vocab>,
    backend: PhantomData<&'b Backend>,
}

impl<'b> Model<'b> {
    pub fn load(_backend: &'b Backend, path: &str) -> Result<Model<'b>, String> {
        let path = CString::new(path).map_err(|_| "the path contains a NUL byte".to_owned())?;
        // SAFETY: returns a plain struct of defaults; it has no preconditions.
        let params = unsafe { sys::llama_model_default_params() };
        // SAFETY: `path` is a NUL-terminated string alive for the call; `params` are the
        // defaults, whose pointers (overrides, devices, callbacks) are null.
        let raw = unsafe { sys::llama_model_load_from_file(path.as_ptr(), params) };
        let raw = NonNull::new(raw).ok_or("llama.cpp could not load it")?;
        // SAFETY: `raw` is a loaded model; the vocabulary it returns lives as long as it.
        let vocab = unsafe { sys::llama_model_get_vocab(raw.as_ptr()) };
        let Some(vocab) = NonNull::new(vocab.cast_mut()) else {
            // SAFETY: `raw` came from llama_model_load_from_file and is freed only here.
            unsafe { sys::llama_model_free(raw.as_ptr()) };
            return Err("the model has no vocabulary".to_owned());
        };
        Ok(Model {
            raw,
            vocab,
            backend: PhantomData,
        })
    }

    /// The context length the model was trained with.
    pub fn n_ctx_train(&self) -> u32 {
        // SAFETY: `self.raw` is a live model.
        let n = unsafe { sys::llama_model_n_ctx_train(self.raw.as_ptr()) };
        u32::try_from(n).unwrap_or(0)
    }

    /// The model's own chat template (its default one), if it carries one.
    pub fn chat_template(&self) -> Option<CString> {
        // SAFETY: `self.raw` is a live model; a null name asks for the default template.
        let template =
            unsafe { sys::llama_model_chat_template(self.raw.as_ptr(), std::ptr::null()) };
        if template.is_null() {
            return None;
        }
        // SAFETY: non-null, it points at a NUL-terminated string the model owns; it is
        // copied before the model can go.
        Some(unsafe { CStr::from_ptr(template) }.to_owned())
    }

    /// `messages` (role, content) through the chat template `template` (a template's text or
    /// the name of one llama.cpp knows, such as "chatml"), ending with the assistant's opening
    /// when `add_assistant`.
    pub fn apply_chat_template(
        &self,
        template: &CStr,
        messages: &[(CString, CString)],
        add_assistant: bool,
    ) -> Result<String, String> {
        let chat: Vec<sys::llama_chat_message> = messages
            .iter()
            .map(|(role, content)| sys::llama_chat_message {
                role: role.as_ptr(),
                content: content.as_ptr(),
            })
            .collect();
        // llama.cpp's advice: twice the length of the messages; asked again when too small.
        let length: usize = messages
            .iter()
            .map(|(r, c)| r.as_bytes().len() + c.as_bytes().len())
            .sum();
        let mut buffer = vec![0u8; length * 2];
        let apply = |buffer: &mut [u8]| -> Result<usize, String> {
            let capacity = i32::try_from(buffer.len()).map_err(|_| "the chat is too long")?;
            // SAFETY: `template` and every role and content are NUL-terminated strings that
            // outlive the call; `chat` holds `chat.len()` messages; llama.cpp writes at most
            // `capacity` bytes into `buffer`, which has that many.
            let n = unsafe {
                sys::llama_chat_apply_template(
                    template.as_ptr(),
                    chat.as_ptr(),
                    chat.len(),
                    add_assistant,
                    buffer.as_mut_ptr().cast::<c_char>(),
                    capacity,
                )
            };
            usize::try_from(n).map_err(|_| format!("llama.cpp returned {n}"))
        };
        let mut n = apply(&mut buffer)?;
        if n > buffer.len() {
            buffer.resize(n, 0);
            n = apply(&mut buffer)?;
        }
        buffer.truncate(n);
        String::from_utf8(buffer).map_err(|e| e.to_string())
    }

    /// `text` as tokens, special tokens (`<|im_start|>`) parsed as such, no BOS added.
    pub fn tokenize(&self, text: &str) -> Result<Vec<Token>, String> {
        let text_len = i32::try_from(text.len()).map_err(|_| "the text is too long")?;
        let mut tokens: Vec<sys::llama_token> = Vec::with_capacity((text.len() / 2).max(8));
        let tokenize = |tokens: &mut Vec<sys::llama_token>| {
            let capacity = i32::try_from(tokens.capacity()).unwrap_or(i32::MAX);
            // SAFETY: `text` is `text_len` bytes alive for the call; llama.cpp writes at most
            // `capacity` tokens into `tokens`' allocation, which has room for that many.
            unsafe {
                sys::llama_tokenize(
                    self.vocab.as_ptr(),
                    text.as_ptr().cast::<c_char>(),
                    text_len,
                    tokens.as_mut_ptr(),
                    capacity,
                    false,
                    true,
                )
            }
        };
        let mut n = tokenize(&mut tokens);
        if n < 0 && n != i32::MIN {
            // Too small: -n is how many there are.
            tokens.reserve_exact(n.unsigned_abs() as usize);
            n = tokenize(&mut tokens);
        }
        let n = usize::try_from(n).map_err(|_| "llama.cpp could not tokenize the text")?;
        if n > tokens.capacity() {
            return Err("llama.cpp wrote more tokens than it had room for".to_owned());
        }
        // SAFETY: llama.cpp initialized the first `n` elements (n ≤ capacity, checked).
        unsafe { tokens.set_len(n) };
        Ok(tokens.into_iter().map(Token).collect())
    }

    /// The bytes of one token (special tokens rendered as nothing).
    pub fn token_to_piece(&self, token: Token) -> Vec<u8> {
        let mut piece: Vec<u8> = Vec::with_capacity(8);
        let to_piece = |piece: &mut Vec<u8>| {
            let capacity = i32::try_from(piece.capacity()).unwrap_or(i32::MAX);
            // SAFETY: llama.cpp writes at most `capacity` bytes into `piece`'s allocation,
            // which has room for that many.
            unsafe {
                sys::llama_token_to_piece(
                    self.vocab.as_ptr(),
                    token.0,
                    piece.as_mut_ptr().cast::<c_char>(),
                    capacity,
                    0,
                    false,
                )
            }
        };
        let mut n = to_piece(&mut piece);
        if n < 0 {
            piece.reserve_exact(n.unsigned_abs() as usize);
            n = to_piece(&mut piece);
        }
        let n = usize::try_from(n).unwrap_or(0).min(piece.capacity());
        // SAFETY: llama.cpp initialized the first `n` bytes (n ≤ capacity).
        unsafe { piece.set_len(n) };
        piece
    }

    /// Whether `token` ends a generation (end of turn or of text).
    pub fn is_eog(&self, token: Token) -> bool {
        // SAFETY: `self.vocab` lives as long as the model; any token id is accepted.
        unsafe { sys::llama_vocab_is_eog(self.vocab.as_ptr(), token.0) }
    }

    /// The beginning-of-sequence token.
    pub fn bos(&self) -> Token {
        // SAFETY: `self.vocab` lives as long as the model.
        Token(unsafe { sys::llama_vocab_bos(self.vocab.as_ptr()) })
    }
}

impl Drop for Model<'_> {
    fn drop(&mut self) {
        // SAFETY: contexts and samplers borrow the model, so none outlives this; freed once.
        unsafe { sys::llama_model_free(self.raw.as_ptr()) };
    }
}

/// A context: the KV cache and the logits of the last decode.
pub struct Context<'m> {
    raw: NonNull<sys::llama_context>,
    model: PhantomData<&'m ()>,
}

impl<'m> Context<'m> {
    /// A context of `n_ctx` tokens that decodes up to `n_batch` at once on `threads` threads;
    /// llama.cpp's defaults otherwise.
    pub fn new(
        model: &'m Model<'_>,
        n_ctx: u32,
        n_batch: u32,
        threads: i32,
    ) -> Result<Context<'m>, String> {
        // SAFETY: returns a plain struct of defaults; it has no preconditions.
        let mut params = unsafe { sys::llama_context_default_params() };
        params.n_ctx = n_ctx;
        params.n_batch = n_batch;
        params.n_threads = threads;
        params.n_threads_batch = threads;
        // SAFETY: `model.raw` is a live model that outlives the context ('m); the parameters
        // are the defaults (null callbacks) with four numbers set. Only one context is ever
        // made from a model here, so llama.cpp's adjustment of the model during it is not
        // raced.
        let raw = unsafe { sys::llama_init_from_model(model.raw.as_ptr(), params) };
        let raw = NonNull::new(raw).ok_or("llama.cpp could not create it")?;
        Ok(Context {
            raw,
            model: PhantomData,
        })
    }

    /// Evaluates `batch`; llama.cpp's status when it is not 0.
    pub fn decode(&mut self, batch: &Batch) -> Result<(), String> {
        // SAFETY: the context is live and used by one thread (`&mut self`); the batch's
        // arrays hold `n_tokens` initialized entries (Batch::add), each with one sequence id.
        let status = unsafe { sys::llama_decode(self.raw.as_ptr(), batch.raw) };
        match status {
            0 => Ok(()),
            1 => Err("no room in the KV cache for the batch (1)".to_owned()),
            2 => Err("aborted (2)".to_owned()),
            -1 => Err("the batch is not valid (-1)".to_owned()),
            n => Err(format!("llama.cpp failed ({n})")),
        }
    }

    fn memory(&self) -> sys::llama_memory_t {
        // SAFETY: the context is live; its memory lives as long as it.
        unsafe { sys::llama_get_memory(self.raw.as_ptr()) }
    }

    /// Empties the KV cache, data buffers included.
    pub fn clear_kv_cache(&mut self) {
        // SAFETY: the memory belongs to this live context, used by one thread (`&mut self`).
        unsafe { sys::llama_memory_clear(self.memory(), true) };
    }

    /// Removes sequence 0's positions from `from` on; false when llama.cpp cannot remove a
    /// part of a sequence (then nothing was removed).
    pub fn truncate_kv_cache(&mut self, from: u32) -> bool {
        let Ok(from) = i32::try_from(from) else {
            return false;
        };
        // SAFETY: the memory belongs to this live context, used by one thread (`&mut self`);
        // -1 as the end means "to the end".
        unsafe { sys::llama_memory_seq_rm(self.memory(), 0, from, -1) }
    }
}

impl Drop for Context<'_> {
    fn drop(&mut self) {
        // SAFETY: the context was made by llama_init_from_model and is freed once, here.
        unsafe { sys::llama_free(self.raw.as_ptr()) };
    }
}

/// A batch of tokens for [`Context::decode`], all in sequence 0.
pub struct Batch {
    raw: sys::llama_batch,
    capacity: usize,
}

impl Batch {
    /// A batch with room for `capacity` tokens (at least one).
    pub fn new(capacity: usize) -> Batch {
        let capacity = capacity.clamp(1, i32::MAX as usize);
        // SAFETY: allocates arrays for `capacity` tokens with one sequence id each (embd 0:
        // token ids, not embeddings); freed in Drop. `capacity` fits an i32 (clamped).
        let raw = unsafe { sys::llama_batch_init(capacity as i32, 0, 1) };
        Batch { raw, capacity }
    }

    pub fn clear(&mut self) {
        self.raw.n_tokens = 0;
    }

    pub fn n_tokens(&self) -> i32 {
        self.raw.n_tokens
    }

    /// Adds `token` at `position` of sequence 0; `logits`: whether its logits are wanted.
    pub fn add(&mut self, token: Token, position: i32, logits: bool) -> Result<(), String> {
        let i = usize::try_from(self.raw.n_tokens).unwrap_or(usize::MAX);
        if i >= self.capacity {
            return Err(format!("the batch is full ({} tokens)", self.capacity));
        }
        // SAFETY: llama_batch_init allocated `capacity` entries in each array, and
        // `seq_id[i]` points at room for one sequence id; `i < capacity` (checked above).
        unsafe {
            self.raw.token.add(i).write(token.0);
            self.raw.pos.add(i).write(position);
            self.raw.n_seq_id.add(i).write(1);
            (*self.raw.seq_id.add(i)).write(0);
            self.raw.logits.add(i).write(i8::from(logits));
        }
        self.raw.n_tokens += 1;
        Ok(())
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        // SAFETY: the arrays came from llama_batch_init and are freed once, here.
        unsafe { sys::llama_batch_free(self.raw) };
    }
}

/// A sampler, or a chain of them; the grammar and DRY samplers read the model's vocabulary.
pub struct Sampler<'m> {
    raw: NonNull<sys::llama_sampler>,
    model: PhantomData<&'m ()>,
}

impl<'m> Sampler<'m> {
    fn from_raw(raw: *mut sys::llama_sampler, what: &str) -> Result<Sampler<'m>, String> {
        let raw = NonNull::new(raw).ok_or_else(|| format!("llama.cpp could not make {what}"))?;
        Ok(Sampler {
            raw,
            model: PhantomData,
        })
    }

    /// Only tokens that keep the output inside GBNF `grammar` from its rule `root`; an error
    /// when the grammar does not parse.
    pub fn grammar(model: &'m Model<'_>, grammar: &str, root: &str) -> Result<Self, String> {
        if !grammar.contains(root) {
            return Err(format!("it has no rule {root:?}"));
        }
        let grammar = CString::new(grammar).map_err(|_| "it contains a NUL byte")?;
        let root = CString::new(root).map_err(|_| "its root contains a NUL byte")?;
        // SAFETY: the vocabulary lives as long as the model ('m, which the sampler borrows);
        // both strings are NUL-terminated and alive for the call (llama.cpp copies them).
        // A grammar that does not parse gives null.
        let raw = unsafe {
            sys::llama_sampler_init_grammar(model.vocab.as_ptr(), grammar.as_ptr(), root.as_ptr())
        };
        Self::from_raw(raw, "the grammar sampler")
    }

    /// DRY ("don't repeat yourself"): lowers a token that would extend a run already in the
    /// last `window` tokens, by `multiplier * base^(length - allowed_length)`; a run does not
    /// cross a `breakers` string.
    pub fn dry(
        model: &'m Model<'_>,
        multiplier: f32,
        base: f32,
        allowed_length: i32,
        window: i32,
        breakers: &[&str],
    ) -> Result<Self, String> {
        let breakers = breakers
            .iter()
            .map(|b| CString::new(*b))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| "a sequence breaker contains a NUL byte")?;
        let mut pointers: Vec<*const c_char> = breakers.iter().map(|b| b.as_ptr()).collect();
        // SAFETY: the vocabulary lives as long as the model ('m); `pointers` holds
        // `pointers.len()` NUL-terminated strings alive for the call (llama.cpp copies them).
        let raw = unsafe {
            sys::llama_sampler_init_dry(
                model.vocab.as_ptr(),
                multiplier,
                base,
                allowed_length,
                window,
                pointers.as_mut_ptr(),
                pointers.len(),
            )
        };
        Self::from_raw(raw, "the DRY sampler")
    }

    /// Picks the most likely token.
    pub fn greedy() -> Result<Self, String> {
        // SAFETY: no arguments, no preconditions.
        let raw = unsafe { sys::llama_sampler_init_greedy() };
        Self::from_raw(raw, "the greedy sampler")
    }

    /// The samplers one after the other; the chain owns them.
    pub fn chain(samplers: Vec<Sampler<'m>>) -> Result<Self, String> {
        let params = sys::llama_sampler_chain_params { no_perf: false };
        // SAFETY: plain parameters; returns a new, empty chain (or null).
        let chain = Self::from_raw(
            unsafe { sys::llama_sampler_chain_init(params) },
            "a sampler chain",
        )?;
        for sampler in samplers {
            // The chain frees the samplers it holds: ours must not free it again.
            let sampler = std::mem::ManuallyDrop::new(sampler);
            // SAFETY: both are live samplers; the chain takes ownership of `sampler`, which
            // is not dropped here (ManuallyDrop).
            unsafe { sys::llama_sampler_chain_add(chain.raw.as_ptr(), sampler.raw.as_ptr()) };
        }
        Ok(chain)
    }

    /// Samples a token from output `index` of the context's last decode and accepts it (the
    /// grammar and DRY samplers move on by it).
    pub fn sample(&mut self, ctx: &mut Context<'_>, index: i32) -> Token {
        // SAFETY: the sampler and the context are live and used by this thread alone
        // (`&mut`); `index` is an output of the last decode (the caller's batch asked for its
        // logits), which llama.cpp checks, aborting otherwise.
        Token(unsafe { sys::llama_sampler_sample(self.raw.as_ptr(), ctx.raw.as_ptr(), index) })
    }
}

impl Drop for Sampler<'_> {
    fn drop(&mut self) {
        // SAFETY: a sampler (or chain) we own, freed once; one added to a chain is never
        // dropped by us (Sampler::chain).
        unsafe { sys::llama_sampler_free(self.raw.as_ptr()) };
    }
}
