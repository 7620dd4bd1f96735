package appserver

import "encoding/json"

// The wire types, in the shape of Codex's app-server protocol (v2). Fields
// without omitempty are required: the JSON Schema generated from these
// types (schema.go) says so, and the Codex fit test compares them with the
// installed codex's. Nullable fields Codex requires are pointers without
// omitempty. Params accept unknown fields: Codex clients send many this
// server ignores.

// ClientInfo names the client in initialize.
type ClientInfo struct {
	Name    string  `json:"name"`
	Title   *string `json:"title,omitempty"`
	Version string  `json:"version"`
}

type InitializeParams struct {
	ClientInfo   ClientInfo     `json:"clientInfo"`
	Capabilities map[string]any `json:"capabilities,omitempty"`
}

type InitializeResponse struct {
	UserAgent      string     `json:"userAgent"`
	ServerInfo     ServerInfo `json:"serverInfo"`
	PlatformFamily string     `json:"platformFamily"`
	PlatformOs     string     `json:"platformOs"`
	// CodexHome is csa-agent's state directory (Codex clients require the field).
	CodexHome string `json:"codexHome"`
}

type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Thread is a conversation as the client sees it.
type Thread struct {
	ID            string  `json:"id"`
	SessionID     string  `json:"sessionId"`
	Preview       string  `json:"preview"`
	Model         *string `json:"model"`
	ModelProvider string  `json:"modelProvider"`
	Cwd           string  `json:"cwd"`
	CliVersion    string  `json:"cliVersion"`
	CreatedAt     int64   `json:"createdAt"` // Unix seconds
	UpdatedAt     int64   `json:"updatedAt"`
	Ephemeral     bool    `json:"ephemeral"`
	Source        string  `json:"source"` // always "appServer"
	Status        Status  `json:"status"`
	ProjectID     *string `json:"projectId"`
	Turns         []Turn  `json:"turns"` // never filled: csa-agent has no thread/read yet
}

// Status is a thread's: idle, active or notLoaded.
type Status struct {
	Type string `json:"type"`
}

// ThreadStartParams open a new conversation. ApprovalPolicy is Codex's
// (untrusted, on-failure, on-request: ask; never: do not ask) and Sandbox
// its sandbox mode, mapped to a permission mode; PermissionMode, csa's
// own, wins over Sandbox.
type ThreadStartParams struct {
	Cwd            *string `json:"cwd,omitempty"`
	Model          *string `json:"model,omitempty"`
	ApprovalPolicy *string `json:"approvalPolicy,omitempty"`
	Sandbox        *string `json:"sandbox,omitempty"`
	PermissionMode *string `json:"permissionMode,omitempty"`
}

type ThreadResumeParams struct {
	ThreadID       string  `json:"threadId"`
	Cwd            *string `json:"cwd,omitempty"`
	Model          *string `json:"model,omitempty"`
	ApprovalPolicy *string `json:"approvalPolicy,omitempty"`
	Sandbox        *string `json:"sandbox,omitempty"`
	PermissionMode *string `json:"permissionMode,omitempty"`
}

// ThreadResponse answers thread/start and thread/resume.
type ThreadResponse struct {
	Thread            Thread        `json:"thread"`
	Model             string        `json:"model"`
	ModelProvider     string        `json:"modelProvider"`
	Cwd               string        `json:"cwd"`
	ApprovalPolicy    string        `json:"approvalPolicy"`
	ApprovalsReviewer string        `json:"approvalsReviewer"` // always "user"
	Sandbox           SandboxPolicy `json:"sandbox"`
}

// SandboxPolicy tells what runs without asking: dangerFullAccess
// (bypassPermissions), workspaceWrite (acceptEdits) or readOnly.
// csa-agent has no sandbox of its own: its permission mode decides.
type SandboxPolicy struct {
	Type string `json:"type"`
}

type ThreadListParams struct {
	Cursor *string `json:"cursor,omitempty"` // nextCursor of the previous page
	Limit  *uint32 `json:"limit,omitempty"`  // page size; 0 or absent: 25
}

type ThreadListResponse struct {
	Data       []Thread `json:"data"`
	NextCursor *string  `json:"nextCursor"` // null on the last page
}

// UserInput is one piece of a turn's input. Only text is supported.
type UserInput struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
}

type TurnStartParams struct {
	ThreadID string      `json:"threadId"`
	Input    []UserInput `json:"input"`
	// ApprovalPolicy changes the thread's for this turn and the next ones.
	ApprovalPolicy *string `json:"approvalPolicy,omitempty"`
}

type TurnStartResponse struct {
	Turn Turn `json:"turn"`
}

// Turn is one turn: the user's input and what the agent did with it.
type Turn struct {
	ID          string     `json:"id"`
	Items       []any      `json:"items"` // empty in notifications: items stream as item/*
	Status      string     `json:"status"`
	Error       *TurnError `json:"error,omitempty"`
	StartedAt   *int64     `json:"startedAt,omitempty"`
	CompletedAt *int64     `json:"completedAt,omitempty"`
	DurationMs  *int64     `json:"durationMs,omitempty"`
}

// Turn statuses.
const (
	TurnInProgress  = "inProgress"
	TurnCompleted   = "completed"
	TurnInterrupted = "interrupted"
	TurnFailed      = "failed"
)

type TurnError struct {
	Message string `json:"message"`
	// AdditionalDetails is csa-agent's failure class (auth, rate_limit, ...).
	AdditionalDetails *string `json:"additionalDetails,omitempty"`
}

type TurnInterruptParams struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
}

type TurnInterruptResponse struct{}

type ConfigReadParams struct {
	Cwd           *string `json:"cwd,omitempty"`
	IncludeLayers bool    `json:"includeLayers,omitempty"`
}

// ConfigReadResponse: Config holds model (the default) and csaAgent,
// csa-agent's effective configuration (keys hidden).
type ConfigReadResponse struct {
	Config  map[string]any `json:"config"`
	Origins map[string]any `json:"origins"`
}

type ModelListParams struct {
	Cursor *string `json:"cursor,omitempty"`
	Limit  *uint32 `json:"limit,omitempty"`
}

type ModelListResponse struct {
	Data       []Model `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

// Model is one configured model; ID and Model are its provider/model.
type Model struct {
	ID                        string   `json:"id"`
	Model                     string   `json:"model"`
	DisplayName               string   `json:"displayName"`
	Description               string   `json:"description"`
	Hidden                    bool     `json:"hidden"`
	IsDefault                 bool     `json:"isDefault"`
	DefaultReasoningEffort    string   `json:"defaultReasoningEffort"`
	SupportedReasoningEfforts []Effort `json:"supportedReasoningEfforts"`
}

type Effort struct {
	ReasoningEffort string `json:"reasoningEffort"`
	Description     string `json:"description"`
}

type SkillsListParams struct {
	Cwds []string `json:"cwds,omitempty"`
}

type SkillsListResponse struct {
	Data []SkillsListEntry `json:"data"`
}

type SkillsListEntry struct {
	Cwd    string       `json:"cwd"`
	Skills []Skill      `json:"skills"`
	Errors []SkillError `json:"errors"`
}

// Skill is one skill a thread in Cwd can use; Scope is user or repo.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Path        string `json:"path"`
	Scope       string `json:"scope"`
	Enabled     bool   `json:"enabled"`
}

type SkillError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Notifications.

type ThreadStartedNotification struct {
	Thread Thread `json:"thread"`
}

type TurnNotification struct { // turn/started, turn/completed
	ThreadID string `json:"threadId"`
	Turn     Turn   `json:"turn"`
}

type ItemStartedNotification struct {
	ThreadID    string     `json:"threadId"`
	TurnID      string     `json:"turnId"`
	Item        ThreadItem `json:"item"`
	StartedAtMs int64      `json:"startedAtMs"`
}

type ItemCompletedNotification struct {
	ThreadID      string     `json:"threadId"`
	TurnID        string     `json:"turnId"`
	Item          ThreadItem `json:"item"`
	CompletedAtMs int64      `json:"completedAtMs"`
}

type AgentMessageDeltaNotification struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	ItemID   string `json:"itemId"`
	Delta    string `json:"delta"`
}

type ReasoningTextDeltaNotification struct {
	ThreadID     string `json:"threadId"`
	TurnID       string `json:"turnId"`
	ItemID       string `json:"itemId"`
	Delta        string `json:"delta"`
	ContentIndex int64  `json:"contentIndex"`
}

// Requests to the client.

// CommandExecutionRequestApprovalParams ask about a Bash call, and about
// other tools' calls (Command is then "Tool(subject)"; see docs/csa-agent.md).
type CommandExecutionRequestApprovalParams struct {
	ThreadID    string  `json:"threadId"`
	TurnID      string  `json:"turnId"`
	ItemID      string  `json:"itemId"`
	StartedAtMs int64   `json:"startedAtMs"`
	Reason      *string `json:"reason,omitempty"`
	Command     *string `json:"command,omitempty"`
	Cwd         *string `json:"cwd,omitempty"`
}

type FileChangeRequestApprovalParams struct {
	ThreadID    string  `json:"threadId"`
	TurnID      string  `json:"turnId"`
	ItemID      string  `json:"itemId"`
	StartedAtMs int64   `json:"startedAtMs"`
	Reason      *string `json:"reason,omitempty"`
}

// ApprovalResponse is the client's answer: accept, acceptForSession,
// decline or cancel (decline and interrupt the turn). Codex's amendment
// objects ({"acceptWithExecpolicyAmendment": ...}) count as
// acceptForSession.
type ApprovalResponse struct {
	Decision Decision `json:"decision"`
}

// Decision is a decision as sent: a string or one of Codex's objects.
type Decision struct{ json.RawMessage }

func (d Decision) MarshalJSON() ([]byte, error) {
	if len(d.RawMessage) == 0 {
		return []byte("null"), nil
	}
	return d.RawMessage, nil
}

func (d *Decision) UnmarshalJSON(b []byte) error {
	d.RawMessage = append(json.RawMessage(nil), b...)
	return nil
}
