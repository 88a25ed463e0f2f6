;;; rulelens.el --- RuleLens in Emacs through eglot  -*- lexical-binding: t; -*-

;; Use the RuleLens language server (`rulelens serve') from eglot: Emacs 29+ has eglot built
;; in; on Emacs 26.3-28 install it (Debian: elpa-eglot; or M-x package-install RET eglot).
;;
;;   (load "/path/to/rulelens/emacs/rulelens.el")
;;   (setq rulelens-command '("rulelens" "serve"))
;;   (rulelens-eglot-setup)          ; eglot starts RuleLens in every .md and .mdc file
;;
;; This works from `emacs -Q' too, and without markdown-mode: Emacs 28 has none, so `.md'
;; files would open in Fundamental mode (no hook, no eglot); the set-up opens them in
;; `text-mode' then.  M-x eglot works in any buffer of `rulelens-modes'.  You get the lint
;; diagnostics (flymake), quick fixes (M-x eglot-code-actions) and hovers (eldoc).  eglot has
;; no code-lens display, so `rulelens-code-lenses' shows the lenses' titles in the echo area
;; and `rulelens-chain' shows the chain of instruction files for the buffer's file.
;;
;; eglot runs one server per buffer: a mode listed in `rulelens-modes' gets RuleLens instead
;; of its language's server.  Nothing here is specific to Emacs on the server's side.

;;; Code:

(unless (require 'eglot nil t)
  ;; Emacs 26.3-28: eglot is a package.  Under `emacs -Q' package.el neither starts nor looks
  ;; in the system's package directories (where Debian's elpa-eglot is), so name them here.
  (require 'package)
  (dolist (dir '("/usr/local/share/emacs/site-lisp/elpa" "/usr/share/emacs/site-lisp/elpa"))
    (when (file-directory-p dir)
      (add-to-list 'package-directory-list dir t)))
  (package-initialize)
  (require 'eglot))
(require 'jsonrpc)
(require 'subr-x)

(defgroup rulelens nil
  "Which AI-agent instruction files govern a file, through the RuleLens server."
  :group 'tools)

(defcustom rulelens-command '("rulelens" "serve")
  "The command that starts the RuleLens language server (it speaks LSP over stdio)."
  :type '(repeat string))

(defcustom rulelens-modes '(markdown-mode gfm-mode text-mode)
  "Major modes in which eglot starts RuleLens."
  :type '(repeat symbol))

(defcustom rulelens-files "\\.mdc?\\'"
  "Files in which `rulelens-eglot-setup' starts eglot (in a mode of `rulelens-modes')."
  :type 'regexp)

(defvar-local rulelens--ensured nil
  "Non-nil once `rulelens--ensure' asked eglot to start in this buffer.")

(defun rulelens--ensure ()
  "Start eglot in a file matching `rulelens-files' (from the hooks of `rulelens-modes')."
  (when (and buffer-file-name (not rulelens--ensured)
             (string-match-p rulelens-files buffer-file-name))
    (setq rulelens--ensured t)
    (eglot-ensure)))

;;;###autoload
(defun rulelens-eglot-setup ()
  "Register `rulelens-command' with eglot for `rulelens-modes' and start it in rule files.
Files matching `rulelens-files' get eglot from the modes' hooks.  A `.md' or `.mdc' file no
mode claims (Emacs 28 without markdown-mode) opens in `text-mode' instead of Fundamental
mode, which has no hook."
  (add-to-list 'eglot-server-programs (cons rulelens-modes rulelens-command))
  (dolist (ext '("md" "mdc"))
    (unless (assoc-default (concat "rule." ext) auto-mode-alist #'string-match)
      (add-to-list 'auto-mode-alist (cons (format "\\.%s\\'" ext) 'text-mode))))
  (dolist (mode rulelens-modes)
    (add-hook (intern (format "%s-hook" mode)) #'rulelens--ensure)))

(defun rulelens--server ()
  (or (eglot-current-server)
      (user-error "RuleLens: no eglot server manages this buffer (M-x eglot)")))

;;;###autoload
(defun rulelens-code-lenses ()
  "The titles of RuleLens' code lenses for this buffer; shown when called interactively."
  (interactive)
  (let* ((lenses (jsonrpc-request (rulelens--server) :textDocument/codeLens
                                  (list :textDocument (eglot--TextDocumentIdentifier))))
         (titles (mapcar (lambda (lens) (plist-get (plist-get lens :command) :title)) lenses)))
    (when (called-interactively-p 'interactive)
      (message "%s" (string-join titles " | ")))
    titles))

(defun rulelens--chain-text (chain)
  "CHAIN (the `rulelens/chain' answer) as lines: load order first to last, then skipped."
  (let ((lines (list (format "Loaded (%d), first to last; the last wins:"
                             (length (plist-get chain :files))))))
    (seq-doseq (f (plist-get chain :files))
      (push (format "  %s  %s  %s" (plist-get f :precedence) (plist-get f :role)
                    (plist-get f :path))
            lines))
    (push (format "Skipped (%d):" (length (plist-get chain :skipped))) lines)
    (seq-doseq (s (plist-get chain :skipped))
      (push (format "  %s  [%s]" (plist-get s :path) (plist-get s :reason)) lines))
    (string-join (nreverse lines) "\n")))

;;;###autoload
(defun rulelens-chain ()
  "Show which instruction files Grok loads for a session started in this buffer's own
folder, in *RuleLens chain* (`rulelens-agents' answers for the lens's start directory).
Returns the server's answer (the `rulelens/chain' object, as a plist)."
  (interactive)
  (let ((chain (jsonrpc-request (rulelens--server) :rulelens/chain
                                (list :uri (plist-get (eglot--TextDocumentIdentifier) :uri))))
        (file (buffer-file-name)))
    (with-current-buffer (get-buffer-create "*RuleLens chain*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (format "RuleLens · %s\n" (or file (buffer-name))) (rulelens--chain-text chain) "\n")
        (special-mode)))
    (when (called-interactively-p 'interactive)
      (display-buffer "*RuleLens chain*"))
    chain))

(defun rulelens--shown (path payload)
  "PATH relative to the start directory of PAYLOAD when inside it, else with `~'."
  (let ((cwd (file-name-as-directory (plist-get payload :cwd))))
    (if (string-prefix-p cwd path) (file-relative-name path cwd) (abbreviate-file-name path))))

;;;###autoload
(defun rulelens-agents ()
  "Show every enabled agent's view of this buffer's file in *RuleLens agents*: the
per-agent headline the code lens shows, for the same start directory, then one section
per agent (files at start / on read / may, and what does not load, with the reason).
Returns the server's answer (the `rulelens/agentsForFile' object, as a plist)."
  (interactive)
  (let ((payload (jsonrpc-request (rulelens--server) :rulelens/agentsForFile
                                  (list :uri (plist-get (eglot--TextDocumentIdentifier) :uri))))
        (file (buffer-file-name)))
    (with-current-buffer (get-buffer-create "*RuleLens agents*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (format "RuleLens · %s\n" (or file (buffer-name))))
        (if (null payload)
            (insert "No answer: RuleLens answers for files inside the workspace folders.\n")
          (insert (format "%s · sessions start in %s\n" (plist-get payload :headline)
                          (abbreviate-file-name (plist-get payload :cwd))))
          (seq-doseq (view (plist-get payload :agents))
            (insert (format "\n%s\n" (or (plist-get view :display) (plist-get view :agent))))
            (seq-doseq (f (plist-get view :files))
              (insert (format "  %-8s %s\n" (plist-get f :when)
                              (rulelens--shown (plist-get f :path) payload))))
            (let ((foreign (append (plist-get view :foreign) nil)))
              (seq-doseq (s (plist-get view :skipped))
                (unless (member (plist-get s :path) foreign)
                  (insert (format "  no       %s  [%s]\n"
                                  (rulelens--shown (plist-get s :path) payload)
                                  (plist-get s :reason)))))
              (when foreign
                (insert (format "  other agents' files (%d)\n" (length foreign)))))))
        (special-mode)))
    (when (called-interactively-p 'interactive)
      (display-buffer "*RuleLens agents*"))
    payload))

(provide 'rulelens)
;;; rulelens.el ends here
