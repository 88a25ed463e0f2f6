;;; emacs_init.el --- a person's Emacs with emacs/rulelens.el, for the terminal screenshots
;; RULELENS_ROOT (checkout), RULELENS_CMD (JSON argv), FILE (to open).  Opens FILE, connects
;; eglot, then shows the lens title in the echo area and *RuleLens agents* beside the file.
(require 'package)
(package-initialize)
(require 'json)
(load (expand-file-name "emacs/rulelens.el" (getenv "RULELENS_ROOT")))
(setq rulelens-command (json-parse-string (getenv "RULELENS_CMD") :array-type 'list)
      rulelens-modes '(python-mode markdown-mode text-mode)
      eglot-sync-connect t)
(rulelens-eglot-setup)
(find-file (getenv "FILE"))
(apply #'eglot--connect (eglot--guess-contact))
(let ((title (string-join (rulelens-code-lenses) " | ")))
  (rulelens-agents)
  (delete-other-windows)
  ;; What `M-x rulelens-code-lenses' echoes, kept in view as the file's header line.
  (setq header-line-format (concat "RuleLens lens: " title))
  (let ((side (split-window-right 80)))
    (set-window-buffer side "*RuleLens agents*")
    (set-window-start side 1)
    (with-selected-window side (goto-char (point-min))))
  (message "RuleLens lens: %s" title))
