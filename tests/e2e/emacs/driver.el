;;; driver.el --- batch-mode end-to-end run of the documented Emacs recipe  -*- lexical-binding: t; -*-
;; Loaded after the recipe of docs/editors.md (`emacs -Q --batch -l recipe.el -l driver.el`):
;; nothing here configures RuleLens or eglot.  Environment: FILE (the demo file to open), OUT
;; (JSON result).  Exits 0 when every step ran, 1 otherwise; the Python test asserts on OUT.
(require 'json)

(defvar driver-result nil)
(defun driver-put (key value) (push (cons key value) driver-result))
(defun driver-write ()
  (let ((coding-system-for-write 'utf-8))
    (with-temp-file (getenv "OUT") (insert (json-encode driver-result)))))
(defun driver-wait (pred seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall pred)))

(driver-put "emacs" emacs-version)
(driver-put "eglot_file" (locate-library "eglot"))
(driver-put "markdown_mode" (if (locate-library "markdown-mode") t :json-false))
(let ((code 1) server)
  (condition-case err
      (progn
        (find-file (getenv "FILE"))
        (driver-put "major_mode" (symbol-name major-mode))
        ;; The command loop runs `post-command-hook' after each command (here: find-file);
        ;; batch mode has no command loop, so it is run once, as after C-x C-f.
        (run-hooks 'post-command-hook)
        (unless (driver-wait (lambda () eglot--managed-mode) 30)
          (error "eglot did not start in the buffer"))
        (setq server (eglot-current-server))
        (driver-put "attached" t)
        (driver-put "server_name" (plist-get (eglot--server-info server) :name))
        (driver-put "code_lens_provider"
                    (if (eglot--server-capable :codeLensProvider) t :json-false))
        (driver-put "lenses" (vconcat (rulelens-code-lenses)))
        (let ((chain (rulelens-chain)))
          (driver-put "chain_files"
                      (vconcat (mapcar (lambda (f) (plist-get f :path)) (plist-get chain :files))))
          (driver-put "chain_skipped"
                      (vconcat (mapcar (lambda (s) (format "%s [%s]" (plist-get s :path) (plist-get s :reason)))
                                       (plist-get chain :skipped)))))
        (driver-put "chain_buffer" (with-current-buffer "*RuleLens chain*" (buffer-string)))
        (let ((payload (rulelens-agents)))
          (driver-put "headline" (plist-get payload :headline))
          (driver-put "agents_lens" (plist-get payload :lens)))
        (driver-put "agents_buffer" (with-current-buffer "*RuleLens agents*" (buffer-string)))
        (let ((hover (jsonrpc-request server :textDocument/hover
                                      (list :textDocument (eglot--TextDocumentIdentifier)
                                            :position (list :line 0 :character 0)))))
          (driver-put "hover" (plist-get (plist-get hover :contents) :value)))
        (setq code 0))
    (error (driver-put "error" (error-message-string err))))
  (when server
    (ignore-errors (eglot-shutdown server)))
  (driver-write)
  (kill-emacs code))
